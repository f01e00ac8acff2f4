import torch
from torch.utils.data import DataLoader, TensorDataset, random_split
from torch.utils.data.distributed import DistributedSampler


def _load(path):
    blob = torch.load(path)
    x = blob['x'].float().div(255.)
    if x.dim() == 4 and x.shape[-1] == 3:
        x = x.permute(0, 3, 1, 2).contiguous()
    return TensorDataset(x, blob['y'].long())


def build_loaders(cfg, world_size, rank):
    full = _load(cfg['data'])
    n_val = cfg['val_split']
    train_set, val_set = random_split(full, [len(full) - n_val, n_val],
                                      generator=torch.Generator().manual_seed(cfg['seed']))
    train_sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank,
                                       shuffle=True, seed=cfg['seed'])
    val_sampler = DistributedSampler(val_set, num_replicas=world_size, rank=rank, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=cfg['batch_size'], sampler=train_sampler,
                              num_workers=2, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=cfg['batch_size'], sampler=val_sampler, num_workers=2)
    return train_loader, val_loader, train_sampler
