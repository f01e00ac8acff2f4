import csv
import os
import time


class CsvTracker:
    def __init__(self, out_dir, name="metrics.csv"):
        os.makedirs(out_dir, exist_ok=True)
        self.path = os.path.join(out_dir, name)
        self.t_start = time.time()
        self._header = not os.path.exists(self.path)

    def row(self, **kv):
        kv["wall"] = round(time.time() - self.t_start, 1)
        with open(self.path, "a", newline="") as fh:
            w = csv.DictWriter(fh, fieldnames=list(kv))
            if self._header:
                w.writeheader()
                self._header = False
            w.writerow(kv)
        print(" ".join(f"{k}={v:.4g}" if isinstance(v, float) else f"{k}={v}" for k, v in kv.items()),
              flush=True)
