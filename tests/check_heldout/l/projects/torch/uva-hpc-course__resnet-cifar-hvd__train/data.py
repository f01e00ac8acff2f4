import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

CIFAR_MEAN = (0.4914, 0.4822, 0.4465)
CIFAR_STD = (0.2470, 0.2435, 0.2616)


def get_loaders(root, batch_size, rank, world_size, workers=4):
    train_tf = transforms.Compose([
        transforms.RandomCrop(32, padding=4),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
        transforms.Normalize(CIFAR_MEAN, CIFAR_STD),
    ])
    test_tf = transforms.Compose([transforms.ToTensor(), transforms.Normalize(CIFAR_MEAN, CIFAR_STD)])
    # the dataset is pre-downloaded into the shared course directory
    train_set = datasets.CIFAR10(root, train=True, transform=train_tf, download=False)
    test_set = datasets.CIFAR10(root, train=False, transform=test_tf, download=False)

    train_sampler = DistributedSampler(train_set, num_replicas=world_size, rank=rank)
    test_sampler = DistributedSampler(test_set, num_replicas=world_size, rank=rank, shuffle=False)
    kw = dict(num_workers=workers, pin_memory=torch.cuda.is_available())
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=train_sampler, **kw)
    test_loader = DataLoader(test_set, batch_size=256, sampler=test_sampler, **kw)
    return train_loader, test_loader, train_sampler
