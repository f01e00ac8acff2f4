import os

import keras
import horovod.tensorflow.keras as hvd


def get_callbacks(out_dir, base_lr, warmup_epochs):
    os.makedirs(out_dir, exist_ok=True)
    verbose = 1 if hvd.rank() == 0 else 0
    return [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=base_lr, warmup_epochs=warmup_epochs, verbose=verbose),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=4, verbose=verbose),
        keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "fgsm_at.weights.h5"), save_weights_only=True,
                                        monitor="val_accuracy", save_best_only=True, verbose=verbose),
    ]
