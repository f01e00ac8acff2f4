import os

import keras
import horovod.tensorflow.keras as hvd


def training_callbacks(out_dir):
    """Horovod callbacks plus checkpointing / logging."""
    os.makedirs(out_dir, exist_ok=True)
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(root_rank=0),
        hvd.callbacks.MetricAverageCallback(),
        keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "model.keras"),
                                        monitor="val_loss", save_best_only=True),
    ]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(out_dir, "log.csv")))
    return callbacks
