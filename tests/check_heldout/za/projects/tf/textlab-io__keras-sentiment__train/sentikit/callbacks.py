import os

import horovod.tensorflow.keras as hvd
import keras


def build_callbacks(out_dir, base_lr, warmup_epochs, steps_per_epoch, patience=3):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=base_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
        keras.callbacks.EarlyStopping(monitor="val_auc", mode="max", patience=patience),
    ]
    if hvd.rank() == 0:
        os.makedirs(out_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "best.keras"), monitor="val_auc",
                                                   mode="max", save_best_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(out_dir, "history.csv")))
    return cbs
