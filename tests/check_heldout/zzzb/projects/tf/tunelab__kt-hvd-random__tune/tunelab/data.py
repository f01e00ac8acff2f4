import numpy as np
import keras


def load_fashion(rank, world, val_split=10000):
    """Train arrays: this worker's equal slice. Validation arrays: the same for all workers."""
    (x, y), _ = keras.datasets.fashion_mnist.load_data()
    x = (x.astype("float32") / 255.0)[..., None]
    y = y.astype("int64")
    x_val, y_val = x[:val_split], y[:val_split]
    x_tr, y_tr = x[val_split:], y[val_split:]
    n = len(x_tr) // world * world
    return (x_tr[:n][rank::world], y_tr[:n][rank::world]), (x_val, y_val)


def describe(train, val):
    (x, y), (xv, yv) = train, val
    counts = np.bincount(y, minlength=10)
    return (f"train {x.shape} (per worker), val {xv.shape}; "
            f"class balance min/max {counts.min()}/{counts.max()}")
