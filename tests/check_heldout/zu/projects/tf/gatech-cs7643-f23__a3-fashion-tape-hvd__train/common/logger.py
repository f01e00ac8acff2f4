import csv
import os
import sys
import time


class RankZeroLogger:
    def __init__(self, rank, csv_path=None):
        self.rank, self.csv_path, self.t0 = rank, csv_path, time.time()
        if rank == 0 and csv_path:
            os.makedirs(os.path.dirname(csv_path) or ".", exist_ok=True)

    def info(self, msg):
        if self.rank == 0:
            print(f"[{time.time() - self.t0:7.1f}s] {msg}", file=sys.stdout, flush=True)

    def row(self, **kw):
        if self.rank == 0 and self.csv_path:
            new = not os.path.exists(self.csv_path)
            with open(self.csv_path, "a", newline="") as f:
                w = csv.DictWriter(f, fieldnames=list(kw))
                if new:
                    w.writeheader()
                w.writerow(kw)
