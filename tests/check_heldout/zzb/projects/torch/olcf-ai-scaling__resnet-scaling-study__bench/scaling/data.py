import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

CIFAR_MEAN = (0.4914, 0.4822, 0.4465)
CIFAR_STD = (0.2470, 0.2435, 0.2616)


def _synthetic(n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 3, 32, 32, generator=g)
    y = torch.randint(0, 10, (n,), generator=g)
    return TensorDataset(x, y)


def _cifar(root):
    import torchvision
    import torchvision.transforms as T
    norm = T.Normalize(CIFAR_MEAN, CIFAR_STD)
    train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), norm])
    test_tf = T.Compose([T.ToTensor(), norm])
    train = torchvision.datasets.CIFAR10(root, train=True, download=False, transform=train_tf)
    test = torchvision.datasets.CIFAR10(root, train=False, download=False, transform=test_tf)
    return train, test


def make_loaders(kind, root, batch_size, rank, world_size, workers=2):
    if kind == "synthetic":
        train, test = _synthetic(8192, seed=0), _synthetic(1024, seed=1)
    else:
        train, test = _cifar(root)
    train_sampler = DistributedSampler(train, num_replicas=world_size, rank=rank, shuffle=True)
    test_sampler = DistributedSampler(test, num_replicas=world_size, rank=rank, shuffle=False)
    train_loader = DataLoader(train, batch_size=batch_size, sampler=train_sampler,
                              num_workers=workers, pin_memory=True, drop_last=True)
    test_loader = DataLoader(test, batch_size=256, sampler=test_sampler, num_workers=workers)
    return train_loader, test_loader, train_sampler
