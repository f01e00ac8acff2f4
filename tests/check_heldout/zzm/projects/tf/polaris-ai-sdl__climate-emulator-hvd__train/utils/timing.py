import json
import os
import time

import keras


class RankTimer(keras.callbacks.Callback):
    """Writes per-epoch wall time of this rank to <run_dir>/timing_rank<r>.json."""

    def __init__(self, run_dir, rank, samples_per_epoch):
        super().__init__()
        self.path = os.path.join(run_dir, f"timing_rank{rank}.json")
        self.samples = samples_per_epoch
        self.records = []

    def on_epoch_begin(self, epoch, logs=None):
        self.t0 = time.perf_counter()

    def on_epoch_end(self, epoch, logs=None):
        dt = time.perf_counter() - self.t0
        self.records.append({"epoch": epoch, "seconds": dt, "samples_per_s": self.samples / dt})

    def on_train_end(self, logs=None):
        os.makedirs(os.path.dirname(self.path), exist_ok=True)
        with open(self.path, "w") as f:
            json.dump(self.records, f, indent=1)
