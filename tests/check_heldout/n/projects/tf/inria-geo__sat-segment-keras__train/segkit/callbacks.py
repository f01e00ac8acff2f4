import os

import keras
import horovod.tensorflow.keras as hvd


def build_callbacks(cfg, initial_lr):
    os.makedirs(cfg["out_dir"], exist_ok=True)
    cbs = [
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=initial_lr, warmup_epochs=cfg["warmup_epochs"],
                                                 verbose=0),
        keras.callbacks.ReduceLROnPlateau(monitor="val_loss", factor=0.5, patience=5, min_lr=1e-6),
        keras.callbacks.ModelCheckpoint(os.path.join(cfg["out_dir"], "unet-{epoch:03d}.keras"),
                                        monitor="val_loss", save_best_only=True),
    ]
    if cfg.get("resume"):
        # rank 0 restored the weights: hand them to the other workers before the first step
        cbs.insert(0, hvd.callbacks.BroadcastGlobalVariablesCallback(0))
    if hvd.rank() == 0:
        cbs.append(keras.callbacks.CSVLogger(os.path.join(cfg["out_dir"], "history.csv")))
    return cbs
