import os

import horovod.tensorflow.keras as hvd
import keras


def make_callbacks(out_dir):
    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
           keras.callbacks.TerminateOnNaN()]
    if hvd.rank() == 0:
        os.makedirs(out_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "epoch{epoch:03d}.weights.h5"),
                                                   save_weights_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(out_dir, "log.csv"), append=True))
    return cbs
