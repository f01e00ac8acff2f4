import numpy as np
import horovod.tensorflow.keras as hvd


def load(path):
    d = np.load(path)
    return (d["x_train"].astype("float32"), d["y_train"].astype("int64")), \
           (d["x_test"].astype("float32"), d["y_test"].astype("int64"))


def shard_labeled(x, y, labeled, seed=0):
    """shuffle the labeled indices the same way on every worker, cut to a multiple of
    the world size and give each worker every size-th one"""
    idx = np.random.RandomState(seed).permutation(np.asarray(labeled))
    idx = idx[: len(idx) // hvd.size() * hvd.size()]
    mine = idx[hvd.rank()::hvd.size()]
    return x[mine], y[mine]
