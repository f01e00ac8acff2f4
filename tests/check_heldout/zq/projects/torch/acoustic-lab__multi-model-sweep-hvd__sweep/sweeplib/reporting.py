import csv
import os

import torch
import horovod.torch as hvd


class Reporter:
    """Writes checkpoints and the leaderboard. Only rank 0 gets a real one."""

    @staticmethod
    def create(out_dir):
        return Reporter(out_dir) if hvd.rank() == 0 else _Silent()

    def __init__(self, out_dir):
        self.out_dir = out_dir
        self.rows = []
        os.makedirs(out_dir, exist_ok=True)

    def record(self, name, model, result):
        torch.save(model.state_dict(), os.path.join(self.out_dir, f"{name}.pt"))
        self.rows.append({"model": name, **result})

    def finish(self):
        with open(os.path.join(self.out_dir, "leaderboard.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["model", "val_acc", "val_loss", "epoch"])
            w.writeheader()
            w.writerows(sorted(self.rows, key=lambda r: -r["val_acc"]))


class _Silent:
    def record(self, *a, **k):
        pass

    def finish(self):
        pass
