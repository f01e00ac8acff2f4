import json
import os
import time

import keras


class Tracker:
    """Minimal MLflow look-alike: a run folder with params.json and metrics.jsonl."""

    def __init__(self, uri, enabled=True):
        self.enabled = enabled
        self.run_dir = os.path.join(uri.replace("file:", ""), time.strftime("run-%Y%m%d-%H%M%S"))
        if enabled:
            os.makedirs(self.run_dir, exist_ok=True)

    def log_params(self, params):
        if self.enabled:
            with open(os.path.join(self.run_dir, "params.json"), "w") as f:
                json.dump(params, f, indent=2)

    def log_metrics(self, metrics, step):
        if self.enabled:
            with open(os.path.join(self.run_dir, "metrics.jsonl"), "a") as f:
                f.write(json.dumps({"step": step, **{k: float(v) for k, v in metrics.items()}}) + "\n")


class TrackerCallback(keras.callbacks.Callback):
    def __init__(self, tracker):
        super().__init__()
        self.tracker = tracker

    def on_epoch_end(self, epoch, logs=None):
        self.tracker.log_metrics(logs or {}, step=epoch)
