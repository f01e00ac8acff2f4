import os

import horovod.tensorflow.keras as hvd
import keras


def make_callbacks(out_dir, initial_lr, warmup_epochs=2, patience=3, rank=hvd.rank()):
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=warmup_epochs),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=patience, restore_best_weights=True),
    ]
    if rank == 0:
        os.makedirs(out_dir, exist_ok=True)
        callbacks.append(keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "router.keras"),
                                                         monitor="val_loss", save_best_only=True))
    return callbacks
