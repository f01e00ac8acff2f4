"""MLflow-ish run logging without the mlflow dependency (writes to a local folder)."""
import json
import os
import time
import uuid

import tensorflow as tf


class LocalRun(object):
    def __init__(self, experiment, uri):
        root = uri[len("file:"):] if uri.startswith("file:") else uri
        self.dir = os.path.join(root, experiment, uuid.uuid4().hex[:8])
        os.makedirs(self.dir, exist_ok=True)

    def log_metrics(self, metrics, step):
        with open(os.path.join(self.dir, "metrics.jsonl"), "a") as f:
            f.write(json.dumps({"step": step, "time": time.time(), **metrics}) + "\n")


def get_run(tcfg):
    return LocalRun(tcfg.experiment, tcfg.uri)


class MLflowLikeCallback(tf.keras.callbacks.Callback):
    def __init__(self, run):
        super().__init__()
        self.run = run

    def on_epoch_end(self, epoch, logs=None):
        logs = {k: float(v) for k, v in (logs or {}).items()}
        self.run.log_metrics(logs, step=epoch)
