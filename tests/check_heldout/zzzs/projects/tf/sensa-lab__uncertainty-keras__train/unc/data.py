import json

import numpy as np
import keras
import horovod.tensorflow.keras as hvd


def load_dataset(cfg):
    if cfg.npz_path:
        d = np.load(cfg.npz_path)
        (x, y), (xt, yt) = (d["x_train"], d["y_train"]), (d["x_test"], d["y_test"])
    else:
        (x, y), (xt, yt) = keras.datasets.cifar10.load_data()
    return (x.astype("float32") / 255.0, y.reshape(-1)), (xt.astype("float32") / 255.0, yt.reshape(-1))


class SplitManager(object):
    def __init__(self, n, n_initial, seed=0):
        perm = np.random.RandomState(seed).permutation(n)
        self.labeled = perm[:n_initial]
        self.pool = perm[n_initial:]
        self.seed = seed
        self.calls = 0

    def labeled_shard(self, x, y):
        # same shuffle on every worker, then a strided slice per worker
        self.calls += 1
        idx = np.random.RandomState(self.seed + self.calls).permutation(self.labeled)
        idx = idx[:len(idx) - len(idx) % hvd.size()]
        mine = idx[hvd.rank()::hvd.size()]
        return x[mine], y[mine]

    def move(self, pool_positions):
        self.labeled = np.concatenate([self.labeled, self.pool[pool_positions]])
        self.pool = np.delete(self.pool, pool_positions)

    def dump(self, path):
        with open(path, "w") as f:
            json.dump({"labeled": self.labeled.tolist(), "pool": self.pool.tolist()}, f)
