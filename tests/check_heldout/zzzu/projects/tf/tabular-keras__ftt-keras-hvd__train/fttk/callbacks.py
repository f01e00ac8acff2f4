import os

import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(cfg, steps_per_epoch, scaled_lr):
    cbs = [
        # rank 0's initial weights go to everybody
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        # epoch metrics (incl. val_auc) averaged over the workers before anybody looks at them
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=cfg.warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
        keras.callbacks.EarlyStopping(monitor="val_auc", mode="max", patience=cfg.patience,
                                      restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(cfg.ckpt), exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(cfg.ckpt, monitor="val_auc", mode="max", save_best_only=True))
        cbs.append(keras.callbacks.CSVLogger("history.csv"))
    return cbs
