import torch
from torch.utils.data import DataLoader, Subset
from torchvision import datasets, transforms

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


def partition(n: int, rank: int, size: int, seed: int):
    """Same permutation on every rank, equal contiguous blocks (remainder dropped)."""
    g = torch.Generator().manual_seed(seed)
    perm = torch.randperm(n, generator=g)
    per_rank = n // size
    return perm[rank * per_rank:(rank + 1) * per_rank].tolist()


def build_loaders(root, batch_size, rank, size, seed=0, workers=2):
    train_tf = transforms.Compose([
        transforms.RandomCrop(32, padding=4), transforms.RandomHorizontalFlip(),
        transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    test_tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize(MEAN, STD)])
    train = datasets.CIFAR10(root, train=True, transform=train_tf, download=False)
    test = datasets.CIFAR10(root, train=False, transform=test_tf, download=False)
    ood = datasets.SVHN(root, split="test", transform=test_tf, download=False)

    train_loader = DataLoader(Subset(train, partition(len(train), rank, size, seed)),
                              batch_size=batch_size, shuffle=True, drop_last=True,
                              num_workers=workers, pin_memory=True)
    test_loader = DataLoader(Subset(test, partition(len(test), rank, size, seed + 1)),
                             batch_size=batch_size, num_workers=workers)
    ood_loader = DataLoader(Subset(ood, partition(len(ood), rank, size, seed + 2)),
                            batch_size=batch_size, num_workers=workers)
    return train_loader, test_loader, ood_loader
