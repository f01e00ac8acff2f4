import numpy as np
import torch


def load_mnist_npz(path):
    with np.load(path) as f:
        x_train = f["x_train"].astype(np.float32)[:, None] / 255.0
        x_test = f["x_test"].astype(np.float32)[:, None] / 255.0
        return (x_train, f["y_train"]), (x_test, f["y_test"])


class ShardedBatches:
    """Iterates over this worker's 1/num_shards of an array, in minibatches.

    Every worker permutes the indices with the same seed and takes a strided slice; the slices are
    trimmed to equal length so all workers run the same number of steps.
    """

    def __init__(self, x, batch_size, shard, num_shards, shuffle=True, seed=0):
        self.x = torch.from_numpy(x)
        self.batch_size = batch_size
        self.shard, self.num_shards = shard, num_shards
        self.shuffle, self.seed = shuffle, seed
        self.per_shard = len(x) // num_shards
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def _indices(self):
        n = len(self.x)
        if self.shuffle:
            order = np.random.RandomState(self.seed + self.epoch).permutation(n)
        else:
            order = np.arange(n)
        return order[self.shard::self.num_shards][:self.per_shard]

    def __len__(self):
        return (self.per_shard + self.batch_size - 1) // self.batch_size

    def __iter__(self):
        idx = self._indices()
        for i in range(0, len(idx), self.batch_size):
            yield self.x[idx[i:i + self.batch_size]]
