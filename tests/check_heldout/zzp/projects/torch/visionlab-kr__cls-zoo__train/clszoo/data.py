import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

MEAN, STD = (0.485, 0.456, 0.406), (0.229, 0.224, 0.225)


def build_loaders(cfg):
    train_tf = transforms.Compose([
        transforms.RandomResizedCrop(cfg.img_size),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])
    val_tf = transforms.Compose([
        transforms.Resize(int(cfg.img_size * 1.14)),
        transforms.CenterCrop(cfg.img_size),
        transforms.ToTensor(),
        transforms.Normalize(MEAN, STD),
    ])
    train_set = datasets.ImageFolder(f"{cfg.data_root}/train", train_tf)
    val_set = datasets.ImageFolder(f"{cfg.data_root}/val", val_tf)

    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    kw = dict(num_workers=cfg.workers, pin_memory=torch.cuda.is_available())
    train_loader = DataLoader(train_set, batch_size=cfg.batch_size, sampler=train_sampler, drop_last=True, **kw)
    val_loader = DataLoader(val_set, batch_size=cfg.batch_size, sampler=val_sampler, **kw)
    return train_loader, val_loader, train_sampler


def mixup(x, y, alpha):
    if alpha <= 0:
        return x, y, y, 1.0
    lam = float(torch.distributions.Beta(alpha, alpha).sample())
    idx = torch.randperm(x.size(0), device=x.device)
    return lam * x + (1 - lam) * x[idx], y, y[idx], lam
