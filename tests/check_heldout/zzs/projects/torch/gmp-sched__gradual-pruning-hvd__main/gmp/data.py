import os

import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


def make_loaders(cfg):
    root = os.path.expanduser(cfg.data_root)
    train_tf = transforms.Compose([transforms.RandomCrop(32, 4), transforms.RandomHorizontalFlip(),
                                   transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    val_tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    train = datasets.CIFAR10(root, train=True, transform=train_tf)
    val = datasets.CIFAR10(root, train=False, transform=val_tf)
    train_s = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.rank())
    val_s = DistributedSampler(val, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    return (DataLoader(train, cfg.batch_size, sampler=train_s, num_workers=4, pin_memory=True),
            DataLoader(val, 256, sampler=val_s, num_workers=2), train_s)
