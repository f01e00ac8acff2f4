"""The ResNet34 scripts' data for PyTorch: a torch Dataset, and endless model-ready batches from a loader.

Nothing here is about Horovod: the converted script shards what load() returns.
"""
import itertools

import numpy as np
import torch
import torch.nn.functional as F

import resnet_data


class _Synthetic(torch.utils.data.Dataset):
    def __init__(self, pool, labels):
        self.pool, self.labels = torch.from_numpy(pool), torch.from_numpy(labels)

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        return self.pool[i % len(self.pool)], self.labels[i]


class _Folder(torch.utils.data.Dataset):
    def __init__(self, paths, labels, size):
        self.paths, self.labels, self.size = paths, labels, size

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        from PIL import Image
        with Image.open(self.paths[i]) as im:
            im = im.convert("RGB").resize((self.size, self.size), Image.BILINEAR)
            return torch.from_numpy(np.asarray(im).transpose(2, 0, 1).copy()), int(self.labels[i])


def load(args, samples):
    """(torch Dataset, number of classes); `samples` synthetic images if asked for."""
    if args.data == "synthetic":
        pool, labels = resnet_data.synthetic(samples, args.image_size, args.num_classes, args.seed, True)
        return _Synthetic(pool, labels), args.num_classes
    if args.data == "fashion-mnist":
        x, y = resnet_data.fashion_mnist(args.data_dir)
        return torch.utils.data.TensorDataset(torch.from_numpy(x[:, None]), torch.from_numpy(y)), 10
    paths, labels, classes = resnet_data.image_folder(args.data_dir)
    return _Folder(paths, labels, args.image_size), len(classes)


def ready(loader, args, device):
    """Endless (images, labels) batches on `device`, epoch after epoch, as the model takes them.

    A loader with set_epoch() (hvdkit's sharded one) is told each new epoch: a new shuffle, the same on every rank.
    """
    for epoch in itertools.count():
        if hasattr(loader, "set_epoch"):
            loader.set_epoch(epoch)
        for x, y in loader:
            x = x if args.data == "synthetic" else _normalize(x, args.image_size)
            yield x.to(device, non_blocking=True), y.to(device, non_blocking=True)


def _normalize(x, size):
    """uint8 N x C x H x W (C = 1 or 3) -> float N x 3 x size x size, ImageNet-normalized."""
    x = x.float().div_(255)
    if x.shape[1] == 1:
        x = x.expand(-1, 3, -1, -1)
    if x.shape[-1] != size:
        x = F.interpolate(x, size=(size, size), mode="bilinear", align_corners=False)
    mean, std = (torch.from_numpy(a).view(1, 3, 1, 1) for a in (resnet_data.MEAN, resnet_data.STD))
    return (x - mean) / std
