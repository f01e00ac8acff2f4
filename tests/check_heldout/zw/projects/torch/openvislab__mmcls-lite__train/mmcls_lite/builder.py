import math

import torch
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader, Sampler

MODELS, DATASETS = {}, {}


def register(registry, name=None):
    def _wrap(obj):
        registry[name or obj.__name__] = obj
        return obj
    return _wrap


@register(MODELS, 'ResNet18')
def resnet18(num_classes=10, **kwargs):
    model = torchvision.models.resnet18(num_classes=num_classes)
    model.conv1 = torch.nn.Conv2d(3, 64, 3, 1, 1, bias=False)  # cifar stem
    model.maxpool = torch.nn.Identity()
    return model


@register(DATASETS, 'CIFAR10')
def cifar10(data_prefix, test_mode=False, **kwargs):
    norm = T.Normalize((0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616))
    if test_mode:
        tf = T.Compose([T.ToTensor(), norm])
    else:
        tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), norm])
    return torchvision.datasets.CIFAR10(data_prefix, train=not test_mode, transform=tf, download=False)


def build_from_cfg(cfg, registry):
    args = dict(cfg)
    return registry[args.pop('type')](**args)


def build_model(cfg):
    return build_from_cfg(cfg, MODELS)


def build_dataset(cfg):
    return build_from_cfg(cfg, DATASETS)


class DistributedSampler(Sampler):
    """Same permutation on every rank (seed + epoch), padded, then strided by rank."""

    def __init__(self, dataset, num_replicas, rank, shuffle=True, seed=0):
        self.dataset, self.num_replicas, self.rank = dataset, num_replicas, rank
        self.shuffle, self.seed, self.epoch = shuffle, seed, 0
        self.num_samples = int(math.ceil(len(dataset) / num_replicas))
        self.total_size = self.num_samples * num_replicas

    def set_epoch(self, epoch):
        self.epoch = epoch

    def __iter__(self):
        if self.shuffle:
            g = torch.Generator()
            g.manual_seed(self.seed + self.epoch)
            indices = torch.randperm(len(self.dataset), generator=g).tolist()
        else:
            indices = list(range(len(self.dataset)))
        indices += indices[:self.total_size - len(indices)]
        return iter(indices[self.rank:self.total_size:self.num_replicas])

    def __len__(self):
        return self.num_samples


def build_dataloader(dataset, samples_per_gpu, workers_per_gpu, num_replicas=1, rank=0,
                     shuffle=True, seed=0):
    sampler = DistributedSampler(dataset, num_replicas, rank, shuffle=shuffle, seed=seed)
    return DataLoader(dataset, batch_size=samples_per_gpu, sampler=sampler,
                      num_workers=workers_per_gpu, pin_memory=True, drop_last=shuffle)


def build_optimizer(model, cfg):
    args = dict(cfg)
    opt_type = args.pop('type')
    decay, no_decay = [], []
    for name, p in model.named_parameters():
        (no_decay if p.ndim <= 1 else decay).append(p)
    groups = [dict(params=decay), dict(params=no_decay, weight_decay=0.0)]
    return getattr(torch.optim, opt_type)(groups, **args)
