import os

import keras
import horovod.tensorflow.keras as hvd


def default_callbacks(tcfg):
    os.makedirs(os.path.dirname(tcfg["checkpoint"]) or ".", exist_ok=True)
    return [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_auc", mode="max", factor=0.5, patience=3),
        keras.callbacks.EarlyStopping(monitor="val_auc", mode="max", patience=tcfg["patience"],
                                      restore_best_weights=True),
        keras.callbacks.ModelCheckpoint(tcfg["checkpoint"], monitor="val_auc", mode="max",
                                        save_best_only=True, save_weights_only=True),
    ]
