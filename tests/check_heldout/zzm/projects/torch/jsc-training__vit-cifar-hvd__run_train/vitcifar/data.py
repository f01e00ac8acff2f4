import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

CIFAR_MEAN, CIFAR_STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


def cifar10(data_dir, train, download=False):
    if train:
        tf = transforms.Compose([
            transforms.RandomCrop(32, padding=4),
            transforms.RandomHorizontalFlip(),
            transforms.ToTensor(),
            transforms.Normalize(CIFAR_MEAN, CIFAR_STD),
        ])
    else:
        tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize(CIFAR_MEAN, CIFAR_STD)])
    return datasets.CIFAR10(data_dir, train=train, transform=tf, download=download)


def loader(ds, batch_size, num_workers, rank, world_size, train):
    sampler = DistributedSampler(ds, num_replicas=world_size, rank=rank, shuffle=train)
    dl = DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=num_workers,
                    pin_memory=torch.cuda.is_available(), drop_last=train)
    return dl, sampler
