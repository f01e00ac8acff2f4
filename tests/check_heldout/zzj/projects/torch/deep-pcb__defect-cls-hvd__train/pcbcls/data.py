import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms
import horovod.torch as hvd

_MEAN, _STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def build_train_loader(cfg):
    tf = transforms.Compose([
        transforms.RandomResizedCrop(cfg.image_size, scale=(0.6, 1.0)),
        transforms.RandomHorizontalFlip(),
        transforms.RandomVerticalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(_MEAN, _STD),
    ])
    dataset = datasets.ImageFolder(cfg.data_root + '/train', transform=tf)
    sampler = None
    if cfg.distributed:
        sampler = DistributedSampler(dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    loader = DataLoader(dataset, batch_size=cfg.batch_size, shuffle=sampler is None, sampler=sampler,
                        num_workers=cfg.workers, pin_memory=True, drop_last=True)
    return loader, sampler


def build_val_loader(cfg):
    # the val split is small (~1.5k crops): every worker evaluates all of it
    tf = transforms.Compose([
        transforms.Resize(cfg.image_size),
        transforms.CenterCrop(cfg.image_size),
        transforms.ToTensor(),
        transforms.Normalize(_MEAN, _STD),
    ])
    dataset = datasets.ImageFolder(cfg.data_root + '/val', transform=tf)
    return DataLoader(dataset, batch_size=cfg.batch_size, shuffle=False, num_workers=cfg.workers)
