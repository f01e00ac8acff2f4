import numpy as np
import torch
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, transforms

_NORM = transforms.Normalize((0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616))


def _loader(ds, batch, rank, world, shuffle, workers):
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=shuffle)
    return DataLoader(ds, batch_size=batch, sampler=sampler, num_workers=workers,
                      drop_last=shuffle, pin_memory=True), sampler


def build(root, outlier_npy, batch, rank, world, workers=4):
    aug = transforms.Compose([transforms.RandomCrop(32, padding=4),
                              transforms.RandomHorizontalFlip(), transforms.ToTensor(), _NORM])
    plain = transforms.Compose([transforms.ToTensor(), _NORM])
    train = datasets.CIFAR10(root, train=True, transform=aug)
    test = datasets.CIFAR10(root, train=False, transform=plain)
    ood = datasets.SVHN(root, split="test", transform=plain)
    # auxiliary outliers (e.g. a 300K random-images subset) stored as uint8 NHWC
    raw = np.load(outlier_npy, mmap_mode="r")
    outliers = TensorDataset(((torch.from_numpy(np.ascontiguousarray(raw)).permute(0, 3, 1, 2).float() / 255.0)
                              - torch.tensor(_NORM.mean)[:, None, None]) / torch.tensor(_NORM.std)[:, None, None])
    loaders, samplers = {}, {}
    loaders["train"], samplers["train"] = _loader(train, batch, rank, world, True, workers)
    loaders["outlier"], samplers["outlier"] = _loader(outliers, 2 * batch, rank, world, True, workers)
    loaders["test"], _ = _loader(test, 256, rank, world, False, workers)
    loaders["ood"], _ = _loader(ood, 256, rank, world, False, workers)
    return loaders, samplers
