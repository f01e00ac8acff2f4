import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def build_loaders(cfg, world_size, rank):
    size = cfg["data"]["image_size"]
    train_tf = transforms.Compose([
        transforms.RandomResizedCrop(size),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])
    val_tf = transforms.Compose([
        transforms.Resize(size),
        transforms.CenterCrop(size),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])
    train_set = datasets.ImageFolder(f"{cfg['data']['root']}/train", train_tf)
    val_set = datasets.ImageFolder(f"{cfg['data']['root']}/val", val_tf)

    train_sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank, shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=world_size, rank=rank, shuffle=False)
    bs = cfg["train"]["batch_size"]
    nw = cfg["data"]["num_workers"]
    train_loader = DataLoader(train_set, batch_size=bs, sampler=train_sampler,
                              num_workers=nw, pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=bs, sampler=val_sampler,
                            num_workers=nw, pin_memory=True)
    return train_loader, val_loader, train_sampler
