import os

import keras
import horovod.tensorflow.keras as hvd


def distributed_callbacks(cfg, steps_per_epoch, scaled_lr):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=cfg["warmup_epochs"],
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_mae", factor=0.5, patience=10, min_lr=1e-6),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg["out_dir"], exist_ok=True)
        cbs += [
            keras.callbacks.ModelCheckpoint(os.path.join(cfg["out_dir"], "best.keras"),
                                            monitor="val_mae", save_best_only=True),
            keras.callbacks.CSVLogger(os.path.join(cfg["out_dir"], "history.csv")),
        ]
    return cbs
