import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms


def build_loaders(root, batch_size, workers=4):
    train_tf = transforms.Compose([
        transforms.RandomCrop(32, padding=4),
        transforms.RandomHorizontalFlip(),
        transforms.ToTensor(),
    ])
    test_tf = transforms.ToTensor()
    # one download per node, the others wait
    if hvd.local_rank() == 0:
        datasets.CIFAR10(root, train=True, download=True)
    hvd.barrier()
    train_set = datasets.CIFAR10(root, train=True, transform=train_tf)
    test_set = datasets.CIFAR10(root, train=False, transform=test_tf)

    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    test_sampler = DistributedSampler(test_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    kw = dict(num_workers=workers, pin_memory=torch.cuda.is_available())
    train_loader = DataLoader(train_set, batch_size=batch_size, sampler=train_sampler, drop_last=True, **kw)
    test_loader = DataLoader(test_set, batch_size=256, sampler=test_sampler, **kw)
    return train_loader, test_loader, train_sampler
