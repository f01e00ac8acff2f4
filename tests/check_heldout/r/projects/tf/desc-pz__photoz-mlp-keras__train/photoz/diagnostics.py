"""Rank-0 plots written after training: loss curves from the CSV log."""
import csv
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read_history(out_dir):
    with open(os.path.join(out_dir, "history.csv")) as f:
        rows = list(csv.DictReader(f))
    cols = {k: [float(r[k]) for r in rows] for k in rows[0]} if rows else {}
    return cols


def plot_history(out_dir):
    h = read_history(out_dir)
    if not h:
        return None
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    for ax, key in zip(axes, ("loss", "mae")):
        ax.plot(h["epoch"], h[key], label="train")
        if "val_" + key in h:
            ax.plot(h["epoch"], h["val_" + key], label="validation")
        ax.set_xlabel("epoch")
        ax.set_ylabel(key)
        ax.legend()
    fig.tight_layout()
    path = os.path.join(out_dir, "history.png")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path
