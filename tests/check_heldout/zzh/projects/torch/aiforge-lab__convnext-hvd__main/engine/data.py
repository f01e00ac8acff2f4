import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms


def build_loaders(root, img_size, batch_size, rank, world_size, workers=4):
    mean, std = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)
    train_tf = transforms.Compose([transforms.RandomResizedCrop(img_size), transforms.RandomHorizontalFlip(),
                                   transforms.ToTensor(), transforms.Normalize(mean, std)])
    val_tf = transforms.Compose([transforms.Resize(int(img_size * 1.14)), transforms.CenterCrop(img_size),
                                 transforms.ToTensor(), transforms.Normalize(mean, std)])
    train_ds = datasets.ImageFolder(f"{root}/train", train_tf)
    val_ds = datasets.ImageFolder(f"{root}/val", val_tf)
    train_sampler = DistributedSampler(train_ds, num_replicas=world_size, rank=rank, shuffle=True)
    val_sampler = DistributedSampler(val_ds, num_replicas=world_size, rank=rank, shuffle=False)
    pin = torch.cuda.is_available()
    train_loader = DataLoader(train_ds, batch_size, sampler=train_sampler, num_workers=workers,
                              pin_memory=pin, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size, sampler=val_sampler, num_workers=workers, pin_memory=pin)
    return train_loader, val_loader, train_sampler
