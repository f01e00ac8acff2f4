import numpy as np
import keras


def load_mnist_flat():
    (x_tr, y_tr), (x_te, y_te) = keras.datasets.mnist.load_data()
    x_tr = x_tr.reshape(len(x_tr), -1).astype("float32") / 255.0
    x_te = x_te.reshape(len(x_te), -1).astype("float32") / 255.0
    return (x_tr, y_tr.astype("int64")), (x_te, y_te.astype("int64"))


def rank_slice(x, y, rank, size, seed=0):
    """Shuffle with a seed shared by all workers, then keep an equal interleaved slice."""
    perm = np.random.default_rng(seed).permutation(len(x))
    n = (len(x) // size) * size
    idx = perm[:n][rank::size]
    return x[idx], y[idx]
