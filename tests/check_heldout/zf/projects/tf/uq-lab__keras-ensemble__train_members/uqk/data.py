import keras
import numpy as np


def cifar10_shard(rank, size):
    """This worker's contiguous slice of the (shuffled) train and test sets."""
    (x_tr, y_tr), (x_te, y_te) = keras.datasets.cifar10.load_data()
    perm = np.random.RandomState(0).permutation(len(x_tr))
    x_tr, y_tr = x_tr[perm], y_tr[perm]
    x_tr = np.array_split(x_tr.astype("float32") / 255.0, size)[rank]
    y_tr = np.array_split(y_tr.ravel(), size)[rank]
    x_te = np.array_split(x_te.astype("float32") / 255.0, size)[rank]
    y_te = np.array_split(y_te.ravel(), size)[rank]
    return (x_tr, y_tr), (x_te, y_te)
