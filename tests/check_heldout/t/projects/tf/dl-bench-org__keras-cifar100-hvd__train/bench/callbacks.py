import os

import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(cfg, scaled_lr, steps_per_epoch):
    cbs = [
        # rank 0's initial weights (and optimizer state) to everyone
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        # average logs before anything below reads val_loss
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=cfg.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.2, patience=4, min_lr=1e-5),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=cfg.patience, restore_best_weights=False),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        cbs += [keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, "best.keras"), monitor="val_loss",
                                                save_best_only=True),
                keras.callbacks.CSVLogger(os.path.join(cfg.out_dir, "history.csv"))]
    return cbs
