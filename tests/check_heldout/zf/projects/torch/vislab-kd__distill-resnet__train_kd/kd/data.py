import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

_NORM = transforms.Normalize((0.4914, 0.4822, 0.4465), (0.247, 0.243, 0.261))


def cifar_loaders(root, batch_size, num_replicas, rank, workers=2):
    train_tf = transforms.Compose([transforms.RandomCrop(32, padding=4),
                                   transforms.RandomHorizontalFlip(),
                                   transforms.ToTensor(), _NORM])
    test_tf = transforms.Compose([transforms.ToTensor(), _NORM])
    train_set = datasets.CIFAR100(root, train=True, transform=train_tf)
    test_set = datasets.CIFAR100(root, train=False, transform=test_tf)
    train_sampler = DistributedSampler(train_set, num_replicas=num_replicas, rank=rank)
    test_sampler = DistributedSampler(test_set, num_replicas=num_replicas, rank=rank, shuffle=False)
    train = DataLoader(train_set, batch_size=batch_size, sampler=train_sampler,
                       num_workers=workers, drop_last=True)
    test = DataLoader(test_set, batch_size=batch_size, sampler=test_sampler, num_workers=workers)
    return train, test, train_sampler
