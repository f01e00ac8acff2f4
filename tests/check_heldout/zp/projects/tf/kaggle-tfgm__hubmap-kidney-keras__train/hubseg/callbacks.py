import os

import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(out_dir, fold, initial_lr, patience=6, verbose=0):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=3, verbose=verbose),
        keras.callbacks.ReduceLROnPlateau(monitor="val_dice_coef", mode="max", factor=0.5,
                                          patience=patience // 2, min_lr=1e-6, verbose=verbose),
        keras.callbacks.EarlyStopping(monitor="val_dice_coef", mode="max", patience=patience,
                                      restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        os.makedirs(out_dir, exist_ok=True)
        cbs += [
            keras.callbacks.ModelCheckpoint(os.path.join(out_dir, f"unet_fold{fold}.weights.h5"),
                                            monitor="val_dice_coef", mode="max",
                                            save_best_only=True, save_weights_only=True),
            keras.callbacks.CSVLogger(os.path.join(out_dir, f"log_fold{fold}.csv")),
        ]
    return cbs
