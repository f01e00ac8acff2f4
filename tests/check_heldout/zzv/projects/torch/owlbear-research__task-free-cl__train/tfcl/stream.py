import numpy as np
import torch


def load_stream(path, n_segments, seed):
    """Class-ordered stream cut into segments; boundaries are never shown to the learner."""
    d = np.load(path)
    x, y = d["x_train"], d["y_train"]
    rng = np.random.RandomState(seed)
    classes = rng.permutation(np.unique(y))
    segs = np.array_split(classes, n_segments)
    order = np.concatenate([rng.permutation(np.flatnonzero(np.isin(y, s))) for s in segs])
    return x, y, order, segs, (d["x_test"], d["y_test"])


def shard_stream(order, rank, world, batch_size):
    """Contiguous chunks of every batch-sized window: worker r gets rows r, r+W, ...
    trimmed so that all workers see the same number of mini-batches."""
    usable = len(order) // (world * batch_size) * (world * batch_size)
    return order[:usable][rank::world]


def minibatches(x, y, idx, batch_size):
    for i in range(0, len(idx), batch_size):
        j = idx[i:i + batch_size]
        yield torch.from_numpy(x[j]).float() / 255.0, torch.from_numpy(y[j]).long()
