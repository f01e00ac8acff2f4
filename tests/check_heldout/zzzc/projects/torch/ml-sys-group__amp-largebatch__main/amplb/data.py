import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


def _synthetic(n, seed, dim=256, classes=20):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, dim, generator=g)
    proj = torch.randn(dim, classes, generator=torch.Generator().manual_seed(99))
    return TensorDataset(x, (x @ proj).argmax(1))


def build_loaders(cfg):
    train, val = _synthetic(32768, cfg.data_seed), _synthetic(4096, cfg.data_seed + 1)
    tr = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.rank(), seed=cfg.data_seed)
    va = DistributedSampler(val, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    return (DataLoader(train, batch_size=cfg.batch_size, sampler=tr, drop_last=True),
            DataLoader(val, batch_size=1024, sampler=va))
