import os

import keras
import horovod.tensorflow.keras as hvd


class ScheduledSampling(keras.callbacks.Callback):
    """Linear decay of the teacher-forcing ratio from `start` to `end` over training."""

    def __init__(self, start, end, epochs):
        super().__init__()
        self.start, self.end, self.epochs = start, end, epochs

    def on_epoch_begin(self, epoch, logs=None):
        frac = epoch / max(self.epochs - 1, 1)
        self.model.teacher_ratio.assign(self.start + (self.end - self.start) * frac)


def make_callbacks(cfg):
    cbs = [
        hvd.callbacks.MetricAverageCallback(),
        ScheduledSampling(cfg["ss_start"], cfg["ss_end"], cfg["epochs"]),
    ]
    if hvd.rank() == 0:
        os.makedirs(os.path.dirname(cfg["ckpt_path"]), exist_ok=True)
        cbs.append(keras.callbacks.ModelCheckpoint(cfg["ckpt_path"], save_weights_only=True,
                                                   monitor="val_loss", save_best_only=True))
        cbs.append(keras.callbacks.CSVLogger(os.path.join(os.path.dirname(cfg["ckpt_path"]), "log.csv")))
    return cbs
