import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

SPLIT_MNIST = [(0, 1), (2, 3), (4, 5), (6, 7), (8, 9)]


def _load(root, train):
    f = np.load(f"{root}/mnist.npz")
    x, y = (f["x_train"], f["y_train"]) if train else (f["x_test"], f["y_test"])
    return x.astype(np.float32) / 255.0, y.astype(np.int64)


def split_mnist_task(root, task_id, train, batch_size, rank, world):
    x, y = _load(root, train)
    a, b = SPLIT_MNIST[task_id]
    keep = (y == a) | (y == b)
    ds = TensorDataset(torch.from_numpy(x[keep]), torch.from_numpy((y[keep] == b).astype(np.int64)))
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=train)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler)
