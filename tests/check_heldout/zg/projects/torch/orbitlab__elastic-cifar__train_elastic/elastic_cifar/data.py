import os

import torch
import torchvision
import torchvision.transforms as T
import horovod.torch as hvd

MEAN, STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


def build_datasets(data_dir):
    data_dir = os.path.expanduser(data_dir)
    train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), T.Normalize(MEAN, STD)])
    test_tf = T.Compose([T.ToTensor(), T.Normalize(MEAN, STD)])
    train = torchvision.datasets.CIFAR10(data_dir, train=True, download=False, transform=train_tf)
    test = torchvision.datasets.CIFAR10(data_dir, train=False, download=False, transform=test_tf)
    return train, test


def train_loader(dataset, batch_size, seed):
    """Loader over an ElasticSampler: the sampler re-partitions when workers join or leave."""
    sampler = hvd.elastic.ElasticSampler(dataset, shuffle=True, seed=seed)
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, sampler=sampler,
                                         num_workers=4, pin_memory=True)
    return loader, sampler


def eval_loader(dataset, batch_size):
    sampler = torch.utils.data.distributed.DistributedSampler(
        dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    return torch.utils.data.DataLoader(dataset, batch_size=batch_size, sampler=sampler, num_workers=2)
