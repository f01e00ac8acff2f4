import os

import keras
import horovod.tensorflow.keras as hvd


def training_callbacks(scaled_lr, out_dir, fold, warmup_epochs=3, patience=8):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=warmup_epochs,
                                                 verbose=1 if hvd.rank() == 0 else 0),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=patience, restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        fold_dir = os.path.join(out_dir, f"fold_{fold}")
        os.makedirs(fold_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(fold_dir, "model.keras"),
                                                   monitor="val_loss", save_best_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(fold_dir, "history.csv")))
    return cbs
