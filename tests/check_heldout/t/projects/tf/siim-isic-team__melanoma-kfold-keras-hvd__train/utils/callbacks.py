import os

import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(cfg, fold, verbose):
    os.makedirs(cfg.out_dir, exist_ok=True)
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=cfg.lr, warmup_epochs=cfg.warmup_epochs,
                                                 verbose=verbose),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2, verbose=verbose),
        keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, f"fold{fold}_best.keras"),
                                        monitor="val_loss", save_best_only=True),
    ]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(cfg.out_dir, f"fold{fold}_log.csv")))
    return callbacks
