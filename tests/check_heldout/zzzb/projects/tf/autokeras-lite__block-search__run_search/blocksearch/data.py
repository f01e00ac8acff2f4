import numpy as np
import keras


def load_cifar10(rank, world, n_val=5000):
    """Training arrays sharded by worker (equal sizes); the held-out split is shared."""
    (x, y), (x_test, y_test) = keras.datasets.cifar10.load_data()
    y, y_test = y.reshape(-1), y_test.reshape(-1)
    x_val, y_val = x[-n_val:], y[-n_val:]
    x, y = x[:-n_val], y[:-n_val]
    per_worker = len(x) // world
    sl = slice(rank * per_worker, (rank + 1) * per_worker)
    return (x[sl], y[sl]), (x_val, y_val), (x_test, y_test)


def class_weights(y, num_classes=10):
    counts = np.bincount(y, minlength=num_classes).astype("float64")
    w = counts.sum() / (num_classes * np.maximum(counts, 1))
    return {i: float(v) for i, v in enumerate(w)}
