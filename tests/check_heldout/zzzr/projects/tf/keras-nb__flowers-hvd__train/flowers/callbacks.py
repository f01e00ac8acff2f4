import os
import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(ckpt_path):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
    ]
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(ckpt_path) or ".", exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(ckpt_path, save_weights_only=True))
    return cbs
