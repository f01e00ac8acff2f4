import os

import keras
import horovod.tensorflow.keras as hvd


def elastic_callbacks(state, ckpt_path):
    cbs = [
        hvd.elastic.CommitStateCallback(state, batches_per_commit=20),
        hvd.elastic.UpdateBatchStateCallback(state),
        hvd.elastic.UpdateEpochStateCallback(state),
    ]
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(ckpt_path) or ".", exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(ckpt_path, save_weights_only=True))
    return cbs
