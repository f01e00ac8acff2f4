import os

import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(workdir, resume=False):
    cbs = []
    if resume:
        # after a restart the workers may have read different files: take rank 0's weights
        cbs.append(hvd.callbacks.BroadcastGlobalVariablesCallback(0))
    cbs.append(keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=5))
    if hvd.rank() == 0:
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(workdir, "last.weights.h5"),
                                                   save_weights_only=True))
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(workdir, "best.weights.h5"),
                                                   monitor="val_loss", save_best_only=True,
                                                   save_weights_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(workdir, "log.csv")))
    return cbs


def tensorboard_callback(workdir):
    """Optional TensorBoard writer (rank 0 only; callers add it themselves)."""
    if hvd.rank() != 0:
        return []
    return [keras.callbacks.TensorBoard(log_dir=os.path.join(workdir, "tb"), update_freq=200)]
