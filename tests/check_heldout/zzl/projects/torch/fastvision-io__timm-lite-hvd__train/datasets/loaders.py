import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

import horovod.torch as hvd

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.247, 0.243, 0.261)


def build_loaders(root, batch_size, workers=4):
    train_tf = transforms.Compose([transforms.RandomCrop(32, padding=4),
                                   transforms.RandomHorizontalFlip(),
                                   transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    test_tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    train_set = datasets.CIFAR10(root, train=True, transform=train_tf, download=False)
    test_set = datasets.CIFAR10(root, train=False, transform=test_tf, download=False)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(),
                                       shuffle=True, drop_last=True)
    test_sampler = DistributedSampler(test_set, num_replicas=hvd.size(), rank=hvd.rank(),
                                      shuffle=False)
    kw = dict(batch_size=batch_size, num_workers=workers,
              pin_memory=torch.cuda.is_available())
    return (DataLoader(train_set, sampler=train_sampler, drop_last=True, **kw),
            DataLoader(test_set, sampler=test_sampler, **kw),
            train_sampler)
