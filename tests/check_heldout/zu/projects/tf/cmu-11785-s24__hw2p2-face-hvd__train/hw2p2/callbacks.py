import os

import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(cfg, initial_lr):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr,
                                                 warmup_epochs=cfg["warmup_epochs"]),
    ]
    os.makedirs(cfg["ckpt_dir"], exist_ok=True)
    cbs.append(keras.callbacks.ModelCheckpoint(
        os.path.join(cfg["ckpt_dir"], "ep{epoch:03d}.weights.h5"), save_weights_only=True))
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(cfg["log_csv"]), exist_ok=True)
        cbs.append(keras.callbacks.CSVLogger(cfg["log_csv"], append=True))
    return cbs


def latest_checkpoint(ckpt_dir):
    """returns (path, epoch) of the newest epXXX.weights.h5, or (None, 0)"""
    if not os.path.isdir(ckpt_dir):
        return None, 0
    names = sorted(n for n in os.listdir(ckpt_dir) if n.endswith(".weights.h5"))
    if not names:
        return None, 0
    return os.path.join(ckpt_dir, names[-1]), int(names[-1][2:5])
