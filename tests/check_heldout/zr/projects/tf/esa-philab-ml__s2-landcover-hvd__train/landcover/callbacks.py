import os

import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(cfg, lr, steps_per_epoch):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=cfg["warmup_epochs"],
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=4, min_lr=1e-6),
    ]
    if hvd.rank() == 0:
        os.makedirs(cfg["out_dir"], exist_ok=True)
        cbs += [keras.callbacks.ModelCheckpoint(os.path.join(cfg["out_dir"], "best.keras"),
                                                monitor="val_accuracy", save_best_only=True),
                keras.callbacks.CSVLogger(os.path.join(cfg["out_dir"], "history.csv"))]
    return cbs
