import os

import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms


def _transforms(img_size, train):
    norm = transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))
    if train:
        return transforms.Compose([transforms.RandomResizedCrop(img_size), transforms.RandomHorizontalFlip(),
                                   transforms.TrivialAugmentWide(), transforms.ToTensor(), norm])
    return transforms.Compose([transforms.Resize(int(img_size / 0.875)), transforms.CenterCrop(img_size),
                               transforms.ToTensor(), norm])


def create_loaders(cfg):
    train_set = datasets.ImageFolder(os.path.join(cfg.data_dir, "train"), _transforms(cfg.img_size, True))
    val_set = datasets.ImageFolder(os.path.join(cfg.data_dir, "val"), _transforms(cfg.img_size, False))

    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)

    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, shuffle=True,
                              num_workers=cfg.workers, pin_memory=True, drop_last=True,
                              persistent_workers=cfg.workers > 0)
    val_loader = DataLoader(val_set, batch_size=cfg.batch_size, sampler=val_sampler,
                            num_workers=cfg.workers, pin_memory=True)
    return train_loader, val_loader, train_sampler
