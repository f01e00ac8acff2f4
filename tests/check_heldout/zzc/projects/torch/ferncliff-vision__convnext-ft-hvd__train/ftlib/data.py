import os

from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def _transforms(train):
    if train:
        return transforms.Compose([transforms.RandomResizedCrop(128, scale=(0.5, 1.0)),
                                   transforms.RandomHorizontalFlip(),
                                   transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    return transforms.Compose([transforms.Resize(146), transforms.CenterCrop(128),
                               transforms.ToTensor(), transforms.Normalize(MEAN, STD)])


def build_loaders(root, batch_size, workers, world_size, rank):
    train_set = datasets.ImageFolder(os.path.join(root, "train"), _transforms(True))
    val_set = datasets.ImageFolder(os.path.join(root, "val"), _transforms(False))
    train_sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank, shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=world_size, rank=rank, shuffle=False)
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=train_sampler,
                              num_workers=workers, pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=batch_size, sampler=val_sampler,
                            num_workers=workers, pin_memory=True)
    return train_loader, val_loader, train_sampler
