import glob

import horovod.torch as hvd
import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def load_npz_shards(pattern, num_buckets):
    dense, sparse, click = [], [], []
    for path in sorted(glob.glob(pattern)):
        with np.load(path) as z:
            dense.append(z["dense"].astype(np.float32))
            sparse.append(z["sparse"] % num_buckets)
            click.append(z["click"].astype(np.float32))
    return TensorDataset(torch.from_numpy(np.concatenate(dense)),
                         torch.from_numpy(np.concatenate(sparse)).long(),
                         torch.from_numpy(np.concatenate(click)))


def make_loader(pattern, num_buckets, batch_size, training, workers=2,
                num_replicas=hvd.size(), rank=hvd.rank()):
    ds = load_npz_shards(pattern, num_buckets)
    sampler = DistributedSampler(ds, num_replicas=num_replicas, rank=rank, shuffle=training,
                                 drop_last=True)
    loader = DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=workers,
                        drop_last=training, pin_memory=torch.cuda.is_available())
    return loader, sampler
