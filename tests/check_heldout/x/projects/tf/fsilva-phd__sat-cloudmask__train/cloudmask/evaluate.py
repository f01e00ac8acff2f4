"""Scoring shared by train.py (end of training) and scripts/eval_checkpoint.py."""
import numpy as np

from .data import load_patches


def evaluate_full(model, data_path, batch_size=32):
    _, _, (x_te, y_te) = load_patches(data_path)
    loss, acc = model.evaluate(x_te, y_te, batch_size=batch_size, verbose=0)
    pred = model.predict(x_te, batch_size=batch_size, verbose=0) > 0.5
    inter = np.logical_and(pred, y_te > 0.5).sum()
    union = np.logical_or(pred, y_te > 0.5).sum()
    return {"loss": float(loss), "pixel_acc": float(acc), "cloud_iou": float(inter / max(union, 1))}
