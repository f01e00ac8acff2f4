import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms


class TwoViews:
    """Return two independent augmentations of the same image."""

    def __init__(self, t):
        self.t = t

    def __call__(self, x):
        return self.t(x), self.t(x)


def simclr_augment(size):
    jitter = transforms.ColorJitter(0.4, 0.4, 0.4, 0.1)
    return transforms.Compose([
        transforms.RandomResizedCrop(size, scale=(0.2, 1.0)),
        transforms.RandomHorizontalFlip(),
        transforms.RandomApply([jitter], p=0.8),
        transforms.RandomGrayscale(p=0.2),
        transforms.ToTensor(),
        transforms.Normalize((0.485, 0.456, 0.406), (0.229, 0.224, 0.225)),
    ])


def build_pretrain_loader(cfg, rank, world_size):
    ds = datasets.ImageFolder(cfg.data, transform=TwoViews(simclr_augment(cfg.image_size)))
    sampler = DistributedSampler(ds, num_replicas=world_size, rank=rank, shuffle=True,
                                 seed=cfg.seed, drop_last=True)
    loader = DataLoader(ds, batch_size=cfg.batch_size, sampler=sampler, num_workers=cfg.workers,
                        pin_memory=torch.cuda.is_available(), drop_last=True,
                        persistent_workers=cfg.workers > 0)
    return loader, sampler
