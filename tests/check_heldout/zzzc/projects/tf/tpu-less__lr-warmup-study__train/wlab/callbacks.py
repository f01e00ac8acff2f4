import csv
import os

import keras
import horovod.tensorflow.keras as hvd


class ResultsTable(keras.callbacks.Callback):
    """Appends one row per epoch (already averaged over workers) to a CSV shared by the sweep."""

    def __init__(self, path, run):
        super().__init__()
        self.path, self.run = path, run

    def on_epoch_end(self, epoch, logs=None):
        new = not os.path.exists(self.path)
        with open(self.path, "a", newline="") as f:
            w = csv.writer(f)
            if new:
                w.writerow(["run", "epoch"] + sorted(logs))
            w.writerow([self.run, epoch] + [logs[k] for k in sorted(logs)])


def standard(scaled_lr, warmup_epochs, steps_per_epoch, out_dir, run):
    cbs = [
        hvd.callbacks.BroadcastGlobalVariablesCallback(0),
        hvd.callbacks.MetricAverageCallback(),
        hvd.callbacks.LearningRateWarmupCallback(initial_lr=scaled_lr, warmup_epochs=warmup_epochs,
                                                 steps_per_epoch=steps_per_epoch, verbose=0),
    ]
    if hvd.rank() == 0:
        os.makedirs(out_dir, exist_ok=True)
        cbs += [keras.callbacks.ModelCheckpoint(os.path.join(out_dir, run + ".keras")),
                ResultsTable(os.path.join(out_dir, "results.csv"), run)]
    return cbs
