"""Run tracking for router jobs: params once, metrics per epoch, in the tracking service's
file format (the sidecar uploads run.jsonl to the tracking server when the pod exits)."""
import json
import os
import time

import keras


class RunLogger(keras.callbacks.Callback):
    def __init__(self, run_dir, params):
        super().__init__()
        self.path = os.path.join(run_dir, "run.jsonl")
        self.params = params

    def _write(self, record):
        record["ts"] = time.time()
        with open(self.path, "a") as f:
            f.write(json.dumps(record) + "\n")

    def on_train_begin(self, logs=None):
        self._write({"type": "params", "params": self.params})

    def on_epoch_end(self, epoch, logs=None):
        metrics = {k: float(v) for k, v in (logs or {}).items()}
        self._write({"type": "metrics", "epoch": epoch, "metrics": metrics})

    def on_train_end(self, logs=None):
        self._write({"type": "status", "status": "FINISHED"})
