import csv
import os


def write_csv(path, ids, values, header=("id", "yield")):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(header)
        for i, v in zip(ids, values):
            w.writerow([int(i), f"{float(v):.4f}"])
