import os

import keras
import horovod.tensorflow.keras as hvd

from .losses import binary_focal_loss


def compile_model(model, cfg):
    # linear scaling rule for the learning rate
    opt = keras.optimizers.Adam(learning_rate=cfg["lr"] * hvd.size())
    model.compile(optimizer=opt,
                  loss=binary_focal_loss(cfg["focal_gamma"], cfg["focal_alpha"]),
                  metrics=[keras.metrics.BinaryAccuracy(name="acc")])
    return model


def make_callbacks(cfg, fold_dir):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=4, verbose=0),
    ]
    if hvd.rank() == 0:
        os.makedirs(fold_dir, exist_ok=True)
        cbs += [
            keras.callbacks.ModelCheckpoint(os.path.join(fold_dir, "best.keras"), monitor="val_loss",
                                            save_best_only=True),
            keras.callbacks.CSVLogger(os.path.join(fold_dir, "log.csv")),
        ]
    return cbs
