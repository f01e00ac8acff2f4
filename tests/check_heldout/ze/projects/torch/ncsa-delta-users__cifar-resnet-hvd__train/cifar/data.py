import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

import horovod.torch as hvd

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


def make_loaders(cfg):
    train_tf = transforms.Compose([transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(),
                                   transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    val_tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    train_set = datasets.CIFAR10(cfg.data_dir, train=True, transform=train_tf)
    val_set = datasets.CIFAR10(cfg.data_dir, train=False, transform=val_tf)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    kw = dict(num_workers=cfg.workers, pin_memory=torch.cuda.is_available())
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, sampler=train_sampler, drop_last=True, **kw)
    val_loader = DataLoader(val_set, batch_size=256, sampler=val_sampler, **kw)
    return train_loader, val_loader, train_sampler
