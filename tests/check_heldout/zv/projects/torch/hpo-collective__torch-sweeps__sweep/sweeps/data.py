import torch
from torch.utils.data import TensorDataset, DataLoader
from torch.utils.data.distributed import DistributedSampler


def make_blobs(n_samples, n_features, n_classes, seed):
    g = torch.Generator().manual_seed(seed)
    centers = torch.randn(n_classes, n_features, generator=g) * 3.0
    y = torch.randint(0, n_classes, (n_samples,), generator=g)
    x = centers[y] + torch.randn(n_samples, n_features, generator=g)
    return TensorDataset(x, y)


def loaders(cfg, rank, world):
    full = make_blobs(cfg.n_samples, cfg.n_features, cfg.n_classes, cfg.seed)
    n_val = cfg.n_samples // 5
    train = torch.utils.data.Subset(full, range(n_val, cfg.n_samples))
    val = torch.utils.data.Subset(full, range(n_val))
    train_sampler = DistributedSampler(train, num_replicas=world, rank=rank, shuffle=True, seed=cfg.seed)
    val_sampler = DistributedSampler(val, num_replicas=world, rank=rank, shuffle=False)
    return (DataLoader(train, batch_size=cfg.batch_size, sampler=train_sampler),
            DataLoader(val, batch_size=256, sampler=val_sampler),
            train_sampler)
