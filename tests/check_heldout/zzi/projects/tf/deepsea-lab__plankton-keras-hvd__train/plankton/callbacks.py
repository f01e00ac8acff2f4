import json
import os
import time

import keras


class EpochTimer(keras.callbacks.Callback):
    """Writes one JSON line per epoch with wall time and the (already averaged) logs."""

    def __init__(self, path):
        super().__init__()
        self.path = path
        self._t0 = None

    def on_epoch_begin(self, epoch, logs=None):
        self._t0 = time.time()

    def on_epoch_end(self, epoch, logs=None):
        record = {"epoch": epoch, "seconds": round(time.time() - self._t0, 2)}
        record.update({k: float(v) for k, v in (logs or {}).items()})
        os.makedirs(os.path.dirname(self.path) or ".", exist_ok=True)
        with open(self.path, "a") as fh:
            fh.write(json.dumps(record) + "\n")
