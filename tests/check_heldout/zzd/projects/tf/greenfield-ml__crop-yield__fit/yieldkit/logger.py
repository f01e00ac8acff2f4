import json
import time

import keras


class JsonlLogger(keras.callbacks.Callback):
    """Writes one json line per epoch; our dashboards tail this file."""

    def __init__(self, path):
        super().__init__()
        self.path = path
        self._t0 = None

    def on_epoch_begin(self, epoch, logs=None):
        self._t0 = time.time()

    def on_epoch_end(self, epoch, logs=None):
        rec = {"epoch": epoch, "secs": round(time.time() - self._t0, 2)}
        rec.update({k: float(v) for k, v in (logs or {}).items()})
        with open(self.path, "a") as fh:
            fh.write(json.dumps(rec) + "\n")
