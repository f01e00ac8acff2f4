import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def synthetic(n, seed):
    g = torch.Generator().manual_seed(seed)
    return TensorDataset(torch.randn(n, 3, 32, 32, generator=g),
                         torch.randint(0, 10, (n,), generator=g))


def loaders(opts, rank, size):
    train = synthetic(opts.n_samples, opts.seed)
    val = synthetic(max(opts.n_samples // 5, 1), opts.seed + 1)
    tr_s = DistributedSampler(train, num_replicas=size, rank=rank, shuffle=True, seed=opts.seed)
    va_s = DistributedSampler(val, num_replicas=size, rank=rank, shuffle=False)
    return (DataLoader(train, batch_size=opts.batch_size, sampler=tr_s, drop_last=True), tr_s,
            DataLoader(val, batch_size=opts.batch_size, sampler=va_s))
