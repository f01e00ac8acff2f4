import csv
import os
import time


class CSVLogger:
    """Appends one row per epoch; a no-op on workers other than rank 0."""

    def __init__(self, path, enabled=True):
        self.enabled = enabled
        self.path = path
        self.t0 = time.time()
        if enabled:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)

    def log(self, **row):
        if not self.enabled:
            return
        row = {"elapsed_s": round(time.time() - self.t0, 1), **row}
        new = not os.path.exists(self.path)
        with open(self.path, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(row))
            if new:
                w.writeheader()
            w.writerow(row)
        print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
