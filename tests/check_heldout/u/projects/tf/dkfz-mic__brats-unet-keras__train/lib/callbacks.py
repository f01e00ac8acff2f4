import os

import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(cfg, steps_per_epoch):
    out = cfg["out_dir"]
    callbacks = [
        # rank 0's initial weights to everybody, then average the logged metrics
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        # gradual warm-up to the scaled lr (Goyal et al. 2017)
        hvd.callbacks.LearningRateWarmupCallback(warmup_epochs=cfg["warmup_epochs"],
                                                 steps_per_epoch=steps_per_epoch, verbose=1),
        keras.callbacks.ReduceLROnPlateau(monitor="val_dice", mode="max", factor=0.5,
                                          patience=cfg["plateau_patience"], min_lr=1e-6),
        # cluster jobs get pre-empted after 24h: resume from the last epoch automatically
        keras.callbacks.BackupAndRestore(backup_dir=os.path.join(out, "backup")),
    ]
    if hvd.rank() == 0:
        callbacks += [
            keras.callbacks.ModelCheckpoint(os.path.join(out, "best.keras"), monitor="val_dice", mode="max",
                                            save_best_only=True),
            keras.callbacks.CSVLogger(os.path.join(out, "log.csv"), append=True),
        ]
    return callbacks
