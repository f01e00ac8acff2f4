import os

import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(cfg, scaled_lr):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=cfg.warmup_epochs,
                                                 verbose=0),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=cfg.patience,
                                      restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, "ae.best.keras"),
                                                   monitor="val_loss", save_best_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(cfg.out_dir, "history.csv")))
    return cbs
