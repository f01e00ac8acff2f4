import os

import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(tcfg, initial_lr, steps_per_epoch):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
    ]
    if tcfg.get("warmup_epochs", 0) > 0:
        cbs.append(hvd.callbacks.LearningRateWarmupCallback(
            initial_lr=initial_lr, warmup_epochs=tcfg["warmup_epochs"],
            steps_per_epoch=steps_per_epoch, verbose=0))
    if hvd.rank() == 0:
        os.makedirs(tcfg["workdir"], exist_ok=True)
        if tcfg.get("checkpoint", True):
            cbs.append(keras.callbacks.ModelCheckpoint(
                os.path.join(tcfg["workdir"], "ckpt-{epoch:03d}.weights.h5"), save_weights_only=True))
        if tcfg.get("tensorboard"):
            cbs.append(keras.callbacks.TensorBoard(os.path.join(tcfg["workdir"], "tb")))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(tcfg["workdir"], "history.csv")))
    return cbs
