"""Poor man's experiment tracker (we did not get budget for W&B)."""
import json
import os
import time


class RunTracker:
    def __init__(self, run_dir, enabled=True):
        self.enabled = enabled
        self.run_id = time.strftime("%Y%m%d-%H%M%S")
        self.path = os.path.join(run_dir, self.run_id)
        self._fh = None
        if self.enabled:
            os.makedirs(self.path, exist_ok=True)
            self._fh = open(os.path.join(self.path, "metrics.jsonl"), "a")

    def log_params(self, params):
        if not self.enabled:
            return
        with open(os.path.join(self.path, "params.json"), "w") as fh:
            json.dump(params, fh, indent=2, default=str)

    def log(self, **metrics):
        if not self.enabled:
            return
        metrics["ts"] = time.time()
        self._fh.write(json.dumps(metrics) + "\n")
        self._fh.flush()

    def close(self):
        if self._fh is not None:
            self._fh.close()
