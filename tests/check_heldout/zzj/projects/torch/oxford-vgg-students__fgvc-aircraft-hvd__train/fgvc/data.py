import os

import torch
from torch.utils.data import DataLoader, Subset
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms
import horovod.torch as hvd


def build_loaders(cfg):
    size = cfg['image_size']
    norm = transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    train = datasets.ImageFolder(os.path.join(cfg['data_root'], 'trainval'), transforms.Compose([
        transforms.Resize((size, size)), transforms.RandomCrop(size, padding=16),
        transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm]))
    test = datasets.ImageFolder(os.path.join(cfg['data_root'], 'test'), transforms.Compose([
        transforms.Resize((size, size)), transforms.ToTensor(), norm]))
    sampler = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True, seed=7)
    train_loader = DataLoader(train, batch_size=cfg['batch_size'], sampler=sampler, num_workers=4,
                              drop_last=True)
    # test images split round-robin; counts are summed over ranks in evaluate()
    test_part = Subset(test, list(range(hvd.rank(), len(test), hvd.size())))
    test_loader = DataLoader(test_part, batch_size=cfg['batch_size'], shuffle=False, num_workers=4)
    return train_loader, test_loader, sampler
