import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms


def make_loader(cfg, root, batch_size, rank, world_size):
    tf = transforms.Compose([
        transforms.Resize(cfg.image_size),
        transforms.CenterCrop(cfg.image_size),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize((0.5, 0.5, 0.5), (0.5, 0.5, 0.5)),
    ])
    if cfg.dataset == "cifar10":
        ds = datasets.CIFAR10(root, train=True, transform=tf, download=False)
    else:
        ds = datasets.ImageFolder(f"{root}/{cfg.dataset}", transform=tf)
    sampler = DistributedSampler(ds, num_replicas=world_size, rank=rank, shuffle=True, drop_last=True)
    loader = DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=4,
                        pin_memory=True, drop_last=True)
    return loader, sampler
