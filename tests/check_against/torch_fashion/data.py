"""Fashion-MNIST as torch tensors: the Debian package's IDX files, read through hvdkit's reader."""
import torch
from torch.utils.data import TensorDataset

from hvdkit.data import datasets


def train_set(subset):
    x, y, _, _ = datasets.load("fashion-mnist")
    x, y = x[:subset], y[:subset]
    images = torch.from_numpy(x).float().div_(255.0).unsqueeze(1)  # N x 1 x 28 x 28 in [0, 1]
    return TensorDataset((images - 0.286) / 0.353, torch.from_numpy(y).long())
