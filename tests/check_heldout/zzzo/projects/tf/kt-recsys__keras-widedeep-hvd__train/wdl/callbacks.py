import os

import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(cfg, scaled_lr):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=cfg.warmup_epochs,
                                                 verbose=1 if hvd.rank() == 0 else 0),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.model_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.model_dir, "wdl-{epoch:02d}.keras")))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(cfg.model_dir, "history.csv")))
    return cbs
