import csv
import os


def last_logged_epoch(csv_path):
    """CSVLogger rows are 0-based epochs; returns the epoch to start from."""
    if not os.path.exists(csv_path):
        return 0
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    return int(rows[-1]["epoch"]) + 1 if rows else 0


def plot(csv_path, png_path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    with open(csv_path) as f:
        rows = list(csv.DictReader(f))
    ep = [int(r["epoch"]) for r in rows]
    plt.plot(ep, [float(r["accuracy"]) for r in rows], label="train")
    plt.plot(ep, [float(r["val_accuracy"]) for r in rows], label="val")
    plt.legend()
    plt.savefig(png_path)
