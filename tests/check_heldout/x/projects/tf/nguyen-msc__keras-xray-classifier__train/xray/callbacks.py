import os
import time

import horovod.tensorflow.keras as hvd
import keras


class EpochTimer(keras.callbacks.Callback):
    """Adds the epoch time to the logs (for the scaling plots in the report)."""

    def on_epoch_begin(self, epoch, logs=None):
        self._t0 = time.time()

    def on_epoch_end(self, epoch, logs=None):
        if logs is not None:
            logs["epoch_time"] = time.time() - self._t0


def make_callbacks(args):
    callbacks = [
        # average val_loss / val_accuracy over the workers before anything reads them
        hvd.callbacks.MetricAverageCallback(),
        EpochTimer(),
        keras.callbacks.EarlyStopping(monitor="val_loss", patience=args.patience, restore_best_weights=True),
    ]
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)
        callbacks += [
            keras.callbacks.ModelCheckpoint(os.path.join(args.out, "best.keras"), monitor="val_loss",
                                            save_best_only=True),
            keras.callbacks.CSVLogger(os.path.join(args.out, "history.csv")),
            keras.callbacks.TensorBoard(os.path.join(args.out, "tb")),
        ]
    return callbacks
