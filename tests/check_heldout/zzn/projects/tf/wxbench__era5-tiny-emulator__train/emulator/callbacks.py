import os

import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(cfg):
    """Callbacks shared by every launcher (train.py, finetune.py)."""
    cbs = [
        # average the logged metrics over workers before anything below reads them
        hvd.callbacks.MetricAverageCallback(),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=cfg["train"]["patience"] // 2),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=cfg["train"]["patience"],
                                      restore_best_weights=True),
        keras.callbacks.TerminateOnNaN(),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg["ckpt_dir"], exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(cfg["ckpt_dir"], "best.keras"),
                                                   monitor="val_loss", save_best_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(cfg["ckpt_dir"], "history.csv")))
    return cbs
