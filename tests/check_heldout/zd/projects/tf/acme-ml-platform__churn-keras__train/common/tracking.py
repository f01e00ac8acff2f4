"""Experiment tracking for Keras jobs: one JSON line per epoch for the platform's log shipper."""
import json
import time

import keras


class JsonLinesTracker(keras.callbacks.Callback):
    def __init__(self, experiment, stream=None):
        super().__init__()
        self.experiment = experiment
        self.stream = stream
        self._t0 = None

    def on_train_begin(self, logs=None):
        self._t0 = time.time()

    def on_epoch_end(self, epoch, logs=None):
        record = {"experiment": self.experiment, "epoch": epoch,
                  "elapsed_s": round(time.time() - self._t0, 1)}
        record.update({k: round(float(v), 5) for k, v in (logs or {}).items()})
        line = json.dumps(record)
        if self.stream is not None:
            self.stream.write(line + "\n")
        else:
            print(line, flush=True)
