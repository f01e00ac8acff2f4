"""Hold-out error tables written after training (rank 0 only calls this)."""
import csv
import os

import numpy as np


def gdd(tmax, tmin, base=10.0, cap=30.0):
    """Growing degree days of one month from mean daily extremes (used for the residual table)."""
    tmax, tmin = np.minimum(tmax, cap), np.maximum(tmin, base)
    return np.maximum((tmax + tmin) / 2.0 - base, 0.0) * 30.0


def residual_table(pred, y_true, years):
    rows = []
    for yr in sorted(set(years.tolist())):
        m = years == yr
        err = pred[m] - y_true[m]
        rows.append({"year": yr, "n": int(m.sum()), "bias": float(err.mean()),
                     "rmse": float(np.sqrt((err ** 2).mean())),
                     "mape": float(np.mean(np.abs(err) / np.maximum(y_true[m], 1.0)) * 100)})
    return rows


def write_report(path, rows):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path
