"""Small MLflow-style tracker: params/metrics as JSON lines, one run directory per run."""
import json
import os
import time

import horovod.torch as hvd


class RunTracker:
    def __init__(self, experiment, run_name, root="/var/lib/mltrack"):
        self.active = hvd.rank() == 0
        self.run_dir = os.path.join(root, experiment, run_name)
        if self.active:
            os.makedirs(self.run_dir, exist_ok=True)

    def _write(self, kind, record):
        if not self.active:
            return
        record["ts"] = time.time()
        with open(os.path.join(self.run_dir, kind + ".jsonl"), "a") as fh:
            fh.write(json.dumps(record) + "\n")

    def log_params(self, params):
        self._write("params", dict(params))

    def log_metrics(self, metrics, step):
        self._write("metrics", dict(metrics, step=step))

    def heartbeat(self, **info):
        self._write("health", dict(info))
