import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class RandomSegSet(Dataset):
    """stand-in for the VOC reader on machines without the data"""

    def __init__(self, n, crop, num_classes, seed):
        g = torch.Generator().manual_seed(seed)
        self.img = torch.rand(n, 3, crop, crop, generator=g)
        self.mask = torch.randint(0, num_classes, (n, crop, crop), generator=g)

    def __len__(self):
        return self.img.shape[0]

    def __getitem__(self, i):
        return self.img[i], self.mask[i]


def make_train_loader(cfg):
    ds = RandomSegSet(cfg.train_samples, cfg.crop, cfg.num_classes, seed=0)
    sampler = None
    if cfg.world_size > 1:
        sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank())
    loader = DataLoader(ds, batch_size=cfg.batch_size, shuffle=(sampler is None),
                        sampler=sampler, num_workers=cfg.num_workers, drop_last=True)
    return loader, sampler


def make_val_loader(cfg):
    ds = RandomSegSet(cfg.val_samples, cfg.crop, cfg.num_classes, seed=1)
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    return DataLoader(ds, batch_size=cfg.batch_size, sampler=sampler,
                      num_workers=cfg.num_workers)
