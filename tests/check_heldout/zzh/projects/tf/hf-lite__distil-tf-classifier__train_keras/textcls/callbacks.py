import os

import keras
import horovod.tensorflow.keras as hvd


def training_callbacks(output_dir):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
    ]
    if hvd.rank() == 0:
        os.makedirs(output_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(output_dir, "epoch{epoch:02d}.weights.h5"),
                                                   save_weights_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(output_dir, "log.csv")))
    return cbs
