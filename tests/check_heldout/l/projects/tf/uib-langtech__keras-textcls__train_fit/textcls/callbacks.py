import os

from tensorflow import keras
import horovod.tensorflow.keras as hvd


def make_callbacks(cfg, steps_per_epoch):
    out_dir = cfg["training"]["out_dir"]
    os.makedirs(out_dir, exist_ok=True)
    callbacks = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=cfg["optimizer"]["lr"],
                                                 warmup_epochs=cfg["optimizer"]["warmup_epochs"],
                                                 steps_per_epoch=steps_per_epoch, verbose=1),
        keras.callbacks.ModelCheckpoint(os.path.join(out_dir, "best.keras"), monitor="val_accuracy",
                                        mode="max", save_best_only=True),
        keras.callbacks.EarlyStopping(monitor="val_accuracy", mode="max",
                                      patience=cfg["training"]["patience"], restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        callbacks.append(keras.callbacks.TensorBoard(os.path.join(out_dir, "logs")))
        callbacks.append(keras.callbacks.CSVLogger(os.path.join(out_dir, "history.csv")))
    return callbacks
