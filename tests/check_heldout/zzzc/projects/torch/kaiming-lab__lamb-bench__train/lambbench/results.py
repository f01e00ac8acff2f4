import csv
import os


FIELDS = ["optimizer", "rule", "world", "global_batch", "lr", "epoch", "train_loss", "val_acc"]


def append_row(path, row):
    new = not os.path.exists(path)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        if new:
            w.writeheader()
        w.writerow({k: row.get(k) for k in FIELDS})
