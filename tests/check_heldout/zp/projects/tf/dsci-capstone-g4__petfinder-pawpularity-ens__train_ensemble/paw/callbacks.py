import os

import keras
import horovod.tensorflow.keras as hvd

# created once, shared by every model we train in the run
_HVD_CALLBACKS = []


def _hvd_callbacks():
    if not _HVD_CALLBACKS:
        _HVD_CALLBACKS.extend([
            hvd.callbacks.BroadcastGlobalVariablesCallback(0),
            hvd.callbacks.MetricAverageCallback(),
        ])
    return list(_HVD_CALLBACKS)


def build_callbacks(name, out_dir, epochs):
    cbs = _hvd_callbacks() + [
        keras.callbacks.ReduceLROnPlateau(monitor="val_rmse", factor=0.3, patience=2, min_lr=1e-6),
        keras.callbacks.EarlyStopping(monitor="val_rmse", patience=4, restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(out_dir, f"{name}_best.weights.h5"),
                                                   monitor="val_rmse", save_best_only=True,
                                                   save_weights_only=True))
        cbs.append(keras.callbacks.TensorBoard(os.path.join(out_dir, "tb", name)))
    return cbs
