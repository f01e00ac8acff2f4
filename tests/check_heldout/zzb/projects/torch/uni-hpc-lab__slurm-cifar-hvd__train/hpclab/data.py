import torch
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def build_loaders(cfg, rank, world):
    norm = T.Normalize((0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616))
    train_set = torchvision.datasets.CIFAR10(
        cfg.data_dir, train=True, download=False,
        transform=T.Compose([T.RandomCrop(32, 4), T.RandomHorizontalFlip(), T.ToTensor(), norm]))
    val_set = torchvision.datasets.CIFAR10(
        cfg.data_dir, train=False, download=False, transform=T.Compose([T.ToTensor(), norm]))

    train_sampler = DistributedSampler(train_set, num_replicas=world, rank=rank, shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=world, rank=rank, shuffle=False)
    kw = dict(num_workers=cfg.workers, pin_memory=torch.cuda.is_available())
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, sampler=train_sampler,
                              drop_last=True, **kw)
    val_loader = DataLoader(val_set, batch_size=cfg.batch_size, sampler=val_sampler, **kw)
    return train_loader, val_loader, train_sampler
