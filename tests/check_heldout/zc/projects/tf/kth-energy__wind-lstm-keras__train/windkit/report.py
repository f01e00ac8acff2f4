"""Small helpers for summarising a run (used by train.py and the notebooks)."""
import json
import os

import numpy as np


def denormalised_mae(mae_norm, power_std):
    return float(mae_norm) * float(power_std)


def summarise(history, out_dir="reports", power_std=1.0):
    h = history.history
    best = int(np.argmin(h["val_loss"]))
    summary = {
        "epochs_run": len(h["loss"]),
        "best_epoch": best,
        "best_val_mse": float(h["val_loss"][best]),
        "best_val_mae_kw": denormalised_mae(h["val_mae"][best], power_std),
    }
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "summary.json"), "w") as f:
        json.dump(summary, f, indent=2)
    return summary
