import csv
import os
import time


class CSVLog:
    def __init__(self, path, enabled):
        self.enabled, self.path, self.t0 = enabled, path, time.time()
        if enabled:
            os.makedirs(os.path.dirname(path) or ".", exist_ok=True)

    def write(self, **row):
        if not self.enabled:
            return
        row = {"wall": round(time.time() - self.t0, 1), **row}
        new = not os.path.exists(self.path)
        with open(self.path, "a", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(row))
            if new:
                w.writeheader()
            w.writerow(row)
        print("  ".join(f"{k}={v}" for k, v in row.items()), flush=True)
