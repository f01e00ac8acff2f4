import os

import horovod.tensorflow.keras as hvd
import keras


def build_callbacks(cfg, scaled_lr, steps_per_epoch):
    callbacks = [
        # rank 0's initial weights go to everyone after the first batch
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        # val_loss/val_mae are averaged over workers before anything below reads them
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=cfg.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=1),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=4, min_lr=1e-5),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.output_dir, exist_ok=True)
        callbacks += [
            keras.callbacks.ModelCheckpoint(os.path.join(cfg.output_dir, "best.keras"), monitor="val_loss",
                                            save_best_only=True),
            keras.callbacks.CSVLogger(os.path.join(cfg.output_dir, "history.csv")),
        ]
    return callbacks
