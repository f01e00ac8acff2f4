import os

import numpy as np
import torch


class ShardedArrayData:
    """train.npz / val.npz with x (N,32,32,3) uint8 and y (N,); each worker reads a contiguous block.

    Blocks are cut to the same length so every worker runs the same number of steps.
    """
    MEAN = np.array([0.481, 0.457, 0.408], dtype=np.float32)
    STD = np.array([0.260, 0.253, 0.268], dtype=np.float32)

    def __init__(self, root, batch_size, rank, world, seed=0):
        self.batch_size, self.seed, self.epoch = batch_size, seed, 0
        tr, va = np.load(os.path.join(root, "train.npz")), np.load(os.path.join(root, "val.npz"))
        self.num_classes = int(tr["y"].max()) + 1
        self.train = self._block(tr["x"], tr["y"], rank, world)
        self.val = self._block(va["x"], va["y"], rank, world, drop=False)

    @staticmethod
    def _block(x, y, rank, world, drop=True):
        n = len(x) // world if drop else -(-len(x) // world)
        lo, hi = rank * n, min(len(x), (rank + 1) * n)
        return x[lo:hi], y[lo:hi]

    def set_epoch(self, epoch):
        self.epoch = epoch

    def steps_per_epoch(self):
        return len(self.train[0]) // self.batch_size

    def _to_tensor(self, xb, yb):
        xb = (xb.astype(np.float32) / 255.0 - self.MEAN) / self.STD
        return torch.from_numpy(xb).permute(0, 3, 1, 2).contiguous(), torch.from_numpy(yb.astype(np.int64))

    def batches(self, train=True):
        x, y = self.train if train else self.val
        if train:
            order = np.random.RandomState(self.seed * 1000 + self.epoch).permutation(len(x))
            stop = self.steps_per_epoch() * self.batch_size
        else:
            order, stop = np.arange(len(x)), len(x)
        for i in range(0, stop, self.batch_size):
            idx = order[i:i + self.batch_size]
            xb, yb = x[idx], y[idx]
            if train and np.random.rand() < 0.5:
                xb = xb[:, :, ::-1]
            yield self._to_tensor(xb, yb)
