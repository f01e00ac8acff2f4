import os

import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(settings):
    """Standard callback stack for payflow Keras jobs."""
    os.makedirs(settings.checkpoint_dir, exist_ok=True)
    return [
        hvd.callbacks.BroadcastGlobalVariablesCallback(root_rank=0),
        hvd.callbacks.MetricAverageCallback(),
        keras.callbacks.ModelCheckpoint(os.path.join(settings.checkpoint_dir, "epoch-{epoch:02d}.keras"),
                                        monitor="val_loss", save_best_only=False),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=2, min_lr=1e-5),
    ]
