import numpy as np


def difficulty(x, y):
    """Cheap proxy for sample difficulty: distance to the class mean image (larger = harder)."""
    x = x.reshape(len(x), -1).astype("float32")
    score = np.empty(len(x), dtype="float32")
    for c in np.unique(y):
        m = y == c
        score[m] = np.linalg.norm(x[m] - x[m].mean(0), axis=1)
    return score


def stage_indices(order, frac):
    return order[: int(len(order) * frac)]
