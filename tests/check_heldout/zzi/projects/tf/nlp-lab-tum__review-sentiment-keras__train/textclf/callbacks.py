import json
import os

import keras


class JsonHistory(keras.callbacks.Callback):
    """Appends the epoch logs to <out_dir>/history.json (root worker only)."""

    def __init__(self, out_dir):
        super().__init__()
        self.path = os.path.join(out_dir, "history.json")
        self.rows = []

    def on_epoch_end(self, epoch, logs=None):
        self.rows.append({"epoch": epoch + 1, **{k: round(float(v), 5) for k, v in logs.items()}})
        with open(self.path, "w") as fh:
            json.dump(self.rows, fh, indent=1)
