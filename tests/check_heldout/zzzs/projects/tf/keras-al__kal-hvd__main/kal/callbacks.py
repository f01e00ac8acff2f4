import os

import keras
import horovod.tensorflow.keras as hvd


def make(out_dir, rnd):
    cbs = [
        # a new callback per round: the model is rebuilt every round
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
    ]
    if hvd.rank() == 0:
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "round%02d.weights.h5" % rnd),
                                                   save_weights_only=True))
    return cbs
