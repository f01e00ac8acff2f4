import os

import keras
import horovod.tensorflow.keras as hvd


def standard_callbacks(out_dir, warmup_epochs, initial_lr):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=warmup_epochs, verbose=0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=3),
    ]
    if hvd.rank() == 0:
        os.makedirs(out_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "best.keras"), monitor="val_auc",
                                                   mode="max", save_best_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(out_dir, "history.csv"), append=True))
    return cbs
