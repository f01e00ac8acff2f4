import csv
import os

import torch
import horovod.torch as hvd


def save_period(model, out_dir, period_name):
    os.makedirs(out_dir, exist_ok=True)
    path = os.path.join(out_dir, f"model_{period_name}.pt")
    torch.save(model.state_dict(), path)
    return path


def write_report(rows, out_dir):
    if hvd.rank() != 0:
        return
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "walkforward.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)
