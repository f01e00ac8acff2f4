import csv

import numpy as np


def rmse(a, b):
    return float(np.sqrt(np.mean((np.asarray(a) - np.asarray(b)) ** 2)))


def fit_blend(oof_preds, y):
    """Non-negative least-squares-ish blend: lstsq, clip at 0, renormalise."""
    A = np.stack(oof_preds, 1)
    w, *_ = np.linalg.lstsq(A, y, rcond=None)
    w = np.clip(w, 0, None)
    return w / w.sum() if w.sum() > 0 else np.full(len(oof_preds), 1.0 / len(oof_preds))


def write_submission(path, ids, preds):
    with open(path, "w", newline="") as fh:
        wr = csv.writer(fh)
        wr.writerow(["Id", "Pawpularity"])
        for i, p in zip(ids, preds):
            wr.writerow([i, f"{100.0 * float(p):.3f}"])
