import os

import keras

import horovod.tensorflow.keras as hvd


def build_callbacks(cfg):
    cbs = [
        # sync the initial weights (and optimizer state) from rank 0
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        # average loss/accuracy over ranks before anyone logs them
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=cfg.base_lr * hvd.size(),
                                                 warmup_epochs=cfg.warmup_epochs, verbose=0),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.ckpt_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(
            os.path.join(cfg.ckpt_dir, cfg.name + "-{epoch:03d}.keras")))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(cfg.ckpt_dir, cfg.name + "_history.csv")))
    return cbs
