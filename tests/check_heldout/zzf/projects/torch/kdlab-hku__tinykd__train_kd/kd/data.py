import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


def _cifar(root, train):
    tf = [transforms.ToTensor(), transforms.Normalize(MEAN, STD)]
    if train:
        tf = [transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip()] + tf
    return datasets.CIFAR10(root, train=train, download=False, transform=transforms.Compose(tf))


def build_loaders(root, batch_size, workers=4):
    train_set, test_set = _cifar(root, True), _cifar(root, False)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    test_sampler = DistributedSampler(test_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    pin = torch.cuda.is_available()
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=train_sampler,
                              num_workers=workers, pin_memory=pin, drop_last=True)
    test_loader = DataLoader(test_set, batch_size=256, sampler=test_sampler,
                             num_workers=workers, pin_memory=pin)
    return train_loader, test_loader, train_sampler
