import os
import numpy as np
import torch
from torch.utils.data import TensorDataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


def _load(root, split, size):
    f = os.path.join(root, "%s_%d.npz" % (split, size))
    if not os.path.isfile(f):
        n = 2048 if split == "train" else 512
        rs = np.random.RandomState(1 if split == "train" else 2)
        return rs.rand(n, 3, size, size).astype(np.float32) * 2 - 1, rs.randint(0, 100, n)
    d = np.load(f)
    return d["x"].astype(np.float32) / 127.5 - 1, d["y"]


def get_loaders(args):
    loaders = {}
    for split in ("train", "val"):
        x, y = _load(args.data_root, split, args.img_size)
        ds = TensorDataset(torch.from_numpy(x), torch.from_numpy(y).long())
        sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=(split == "train"))
        loaders[split] = DataLoader(ds, batch_size=args.batch_size, sampler=sampler,
                                    drop_last=(split == "train"), num_workers=2)
    return loaders
