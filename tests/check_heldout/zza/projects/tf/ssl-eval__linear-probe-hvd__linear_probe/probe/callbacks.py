import os

import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(cfg, warmup_lr):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=warmup_lr, warmup_epochs=3, verbose=0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.2, patience=5, min_lr=1e-5),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        cbs += [
            keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, "probe_best.keras"),
                                            monitor="val_accuracy", save_best_only=True),
            keras.callbacks.CSVLogger(os.path.join(cfg.out_dir, "history.csv")),
        ]
    return cbs
