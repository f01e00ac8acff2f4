import os

import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(cfg):
    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
           keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=3, min_lr=1e-6)]
    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg.out_dir, "best.weights.h5"),
                                                   monitor="val_loss", save_best_only=True,
                                                   save_weights_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(cfg.out_dir, "history.csv")))
    return cbs
