"""Minimal experiment tracker: JSON lines to stdout (collected by the pipeline's log shipper)."""
import json
import time


class Tracker:
    def __init__(self, experiment, enabled=True):
        self.experiment = experiment
        self.enabled = enabled
        self._t0 = time.time()

    def log_params(self, params):
        if self.enabled:
            print(json.dumps({"experiment": self.experiment, "params": params}), flush=True)

    def log_metrics(self, metrics, step):
        if self.enabled:
            rec = {"experiment": self.experiment, "step": step, "elapsed": round(time.time() - self._t0, 1)}
            rec.update({k: round(float(v), 5) for k, v in metrics.items()})
            print(json.dumps(rec), flush=True)

    def close(self):
        self.log_metrics({}, step=-1)
