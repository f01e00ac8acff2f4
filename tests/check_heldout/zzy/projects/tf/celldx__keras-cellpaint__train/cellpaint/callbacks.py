import os

import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(cfg, lr, steps_per_epoch, is_chief):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=lr, warmup_epochs=cfg["train"]["warmup_epochs"],
                                                 steps_per_epoch=steps_per_epoch, verbose=int(is_chief)),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=4, min_lr=1e-6),
    ]
    if is_chief:
        out = cfg["output"]["dir"]
        os.makedirs(out, exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(os.path.join(out, "best.keras"), monitor="val_accuracy",
                                                   save_best_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(out, "history.csv")))
    return cbs
