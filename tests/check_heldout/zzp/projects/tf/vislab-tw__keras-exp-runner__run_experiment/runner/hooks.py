import math
import os

import keras
import horovod.tensorflow.keras as hvd


def sgdr(base_lr, cycle, mult):
    def fn(epoch, lr=None):
        e, length = epoch, cycle
        while e >= length:
            e, length = e - length, length * mult
        return 0.5 * base_lr * (1 + math.cos(math.pi * e / length))
    return fn


class ChiefBestCheckpoint(keras.callbacks.Callback):
    """Keeps the weights with the best val_accuracy; only the chief writes."""

    def __init__(self, path):
        super().__init__()
        self.path, self.best = path, -1.0

    def on_epoch_end(self, epoch, logs=None):
        acc = (logs or {}).get("val_accuracy", -1.0)
        if acc > self.best:
            self.best = acc
            if hvd.rank() == 0:
                self.model.save_weights(self.path)


def build_callbacks(cfg, exp_dir):
    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(root_rank=0),
           keras.callbacks.LearningRateScheduler(sgdr(cfg["lr"], cfg["cycle_epochs"], cfg["cycle_mult"]))]
    cbs.append(ChiefBestCheckpoint(os.path.join(exp_dir, "best.weights.h5")))
    if hvd.rank() == 0:
        cbs.append(keras.callbacks.CSVLogger(os.path.join(exp_dir, "history.csv")))
    return cbs
