"""Test-time evaluation with flip augmentation (8 flips of the cube)."""
import itertools

import numpy as np
import tensorflow as tf

from .dataset import hu_window


def predict_tta(model, cubes, batch_size=32):
    x = hu_window(cubes)[..., None].numpy()
    probs = np.zeros(len(x), np.float32)
    flips = [axes for r in range(4) for axes in itertools.combinations((1, 2, 3), r)]
    for axes in flips:
        xf = np.flip(x, axes) if axes else x
        probs += model.predict(xf, batch_size=batch_size, verbose=0)[:, 0]
    return probs / len(flips)


def auroc(y, p):
    order = np.argsort(-p)
    y = y[order]
    tp, fp = np.cumsum(y), np.cumsum(1 - y)
    if tp[-1] == 0 or fp[-1] == 0:
        return float("nan")
    return float(np.trapezoid(np.r_[0, tp / tp[-1]], np.r_[0, fp / fp[-1]]))
