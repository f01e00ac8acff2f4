import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler


def synthetic_classification(n, dim=64, classes=10, seed=1234):
    centers = torch.randn(classes, dim, generator=torch.Generator().manual_seed(0)) * 0.5
    g = torch.Generator().manual_seed(seed)
    y = torch.randint(0, classes, (n,), generator=g)
    x = centers[y] + torch.randn(n, dim, generator=g)
    return TensorDataset(x, y)


def make_loaders(batch_size, rank, world, n_train=8192, n_val=2048):
    train = synthetic_classification(n_train, seed=1234)
    val = synthetic_classification(n_val, seed=4321)
    tr_sampler = DistributedSampler(train, num_replicas=world, rank=rank, shuffle=True)
    va_sampler = DistributedSampler(val, num_replicas=world, rank=rank, shuffle=False)
    return (DataLoader(train, batch_size=batch_size, sampler=tr_sampler, drop_last=True),
            DataLoader(val, batch_size=256, sampler=va_sampler), tr_sampler)
