"""Imagenette (10-class ImageNet subset) loaders, one shard per Horovod rank."""
import os

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def _transforms(size):
    train_tf = transforms.Compose([
        transforms.RandomResizedCrop(size),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])
    val_tf = transforms.Compose([
        transforms.Resize(int(size * 1.14)),
        transforms.CenterCrop(size),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])
    return train_tf, val_tf


def build_loaders(root, batch_size, image_size, workers, rank, world_size):
    train_tf, val_tf = _transforms(image_size)
    train_set = datasets.ImageFolder(os.path.join(root, "train"), train_tf)
    val_set = datasets.ImageFolder(os.path.join(root, "val"), val_tf)
    train_sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank,
                                       shuffle=True, drop_last=True)
    val_sampler = DistributedSampler(val_set, num_replicas=world_size, rank=rank, shuffle=False)
    pin = torch.cuda.is_available()
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=train_sampler,
                              num_workers=workers, pin_memory=pin, drop_last=True,
                              persistent_workers=workers > 0)
    val_loader = DataLoader(val_set, batch_size=batch_size, sampler=val_sampler,
                            num_workers=workers, pin_memory=pin)
    return train_loader, val_loader, train_sampler
