import os

import torch
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms
import horovod.torch as hvd

normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])


def make_loaders(cfg):
    train_ds = datasets.ImageFolder(os.path.join(cfg.data, 'train'), transforms.Compose([
        transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(),
        transforms.ToTensor(), normalize]))
    val_ds = datasets.ImageFolder(os.path.join(cfg.data, 'val'), transforms.Compose([
        transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), normalize]))
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    kw = dict(num_workers=cfg.workers, pin_memory=True, persistent_workers=cfg.workers > 0)
    train_loader = torch.utils.data.DataLoader(train_ds, batch_size=cfg.batch_size, sampler=train_sampler,
                                               drop_last=True, **kw)
    val_loader = torch.utils.data.DataLoader(val_ds, batch_size=cfg.batch_size, sampler=val_sampler, **kw)
    return train_loader, val_loader, train_sampler
