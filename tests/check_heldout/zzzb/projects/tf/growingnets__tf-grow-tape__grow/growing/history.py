import json
import os
import time


class History:
    """Per-epoch records of a growing run, written as JSON lines."""

    def __init__(self, out_dir, enabled=True):
        self.enabled = enabled
        self.path = os.path.join(out_dir, "history.jsonl")
        self.t0 = time.time()
        if enabled:
            os.makedirs(out_dir, exist_ok=True)

    def log(self, **record):
        record["elapsed_s"] = round(time.time() - self.t0, 1)
        if self.enabled:
            with open(self.path, "a") as f:
                f.write(json.dumps(record) + "\n")
            print(" ".join(f"{k}={v}" for k, v in record.items()), flush=True)
