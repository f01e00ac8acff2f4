"""The benchmark's inputs, framework-free: synthetic ImageNet-shaped images, Fashion-MNIST, an image folder.

resnet_data_tf.py and resnet_data_torch.py turn these into a tf.data.Dataset or a torch Dataset.
"""
import os

import numpy as np

from hvdkit.data import datasets
from hvdkit.common.errors import HvdkitError

SOURCES = ("synthetic", "fashion-mnist", "folder")
# ImageNet's per-channel statistics, the usual normalization for a ResNet's RGB input.
MEAN = np.array([0.485, 0.456, 0.406], np.float32)
STD = np.array([0.229, 0.224, 0.225], np.float32)
IMAGE_EXTENSIONS = (".jpg", ".jpeg", ".png", ".bmp", ".gif")
# Distinct synthetic images kept in memory; sample i is image i % POOL, so memory does not grow with steps.
POOL = 32


class DataError(HvdkitError):
    """A data set that is missing or unusable: the same on every rank, so rank 0 reports it."""
    collective = True


def synthetic(num_samples, image_size, num_classes, seed=0, channels_first=False):
    """(pool, labels): POOL standard-normal images (already "normalized") and num_samples labels."""
    rng = np.random.default_rng(seed)
    shape = (min(POOL, num_samples), 3, image_size, image_size) if channels_first else \
        (min(POOL, num_samples), image_size, image_size, 3)
    pool = rng.standard_normal(shape, dtype=np.float32)
    labels = np.arange(num_samples, dtype=np.int64) % num_classes
    return pool, labels


def fashion_mnist(data_dir=None):
    """(x uint8 N x 28 x 28, y int64): the 60,000 training images, resized and coloured by the caller."""
    try:
        x, y, _, _ = datasets.load("fashion-mnist", data_dir)
    except datasets.DataError as exc:
        raise DataError(str(exc)) from None
    return x, y


def image_folder(root):
    """(paths, labels, class names) of ROOT/<class>/<image>, ImageNet's train/ layout; classes sorted."""
    if not root or not os.path.isdir(root):
        raise DataError(f"--data folder needs --data-dir DIR with one subdirectory of images per class, got {root!r}")
    classes = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    paths, labels = [], []
    for label, name in enumerate(classes):
        for dirpath, _, files in sorted(os.walk(os.path.join(root, name))):
            for f in sorted(files):
                if f.lower().endswith(IMAGE_EXTENSIONS):
                    paths.append(os.path.join(dirpath, f))
                    labels.append(label)
    if not paths:
        raise DataError(f"no images ({', '.join(IMAGE_EXTENSIONS)}) in class subdirectories of {root}")
    return paths, np.array(labels, np.int64), classes
