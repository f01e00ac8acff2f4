import os
import time

import horovod.tensorflow.keras as hvd
import keras


class EpochTimer(keras.callbacks.Callback):
    """Prints wall time and images/sec per epoch (rank 0 only)."""

    def __init__(self, samples_per_epoch):
        super().__init__()
        self.samples = samples_per_epoch
        self.t0 = None

    def on_epoch_begin(self, epoch, logs=None):
        self.t0 = time.time()

    def on_epoch_end(self, epoch, logs=None):
        dt = time.time() - self.t0
        if hvd.rank() == 0:
            print(f"  epoch {epoch}: {dt:.1f}s, {self.samples * hvd.size() / dt:.0f} img/s")


def make_callbacks(out_dir, samples_per_epoch=None):
    """Callbacks shared by every member's fit()."""
    cbs = [hvd.callbacks.BroadcastGlobalVariablesCallback(0),
           keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.5, patience=3)]
    if samples_per_epoch:
        cbs.append(EpochTimer(samples_per_epoch))
    if hvd.rank() == 0:
        os.makedirs(out_dir, exist_ok=True)
        cbs.append(keras.callbacks.CSVLogger(os.path.join(out_dir, "train_log.csv"), append=True))
    return cbs
