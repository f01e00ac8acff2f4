import math
import os

import numpy as np
import keras
from PIL import Image

CLASSES = ["cat", "dog"]


def list_images(folder):
    """Sorted (path, label) list; file names look like cat.123.jpg / dog.45.jpg."""
    files = sorted(f for f in os.listdir(folder) if f.endswith(".jpg"))
    return [(os.path.join(folder, f), CLASSES.index(f.split(".")[0])) for f in files]


class ImageSequence(keras.utils.Sequence):
    """Serves this worker's part of a file list: the list is shuffled with a fixed seed
    (same order on all workers), cut to a multiple of the worker count and strided."""

    def __init__(self, items, batch_size, size, rank, img_size=150, augment=False, seed=42, **kwargs):
        super().__init__(**kwargs)
        items = list(items)
        np.random.RandomState(seed).shuffle(items)
        per_worker = len(items) // size
        self.items = items[rank:per_worker * size:size]
        self.batch_size = batch_size
        self.img_size = img_size
        self.augment = augment

    def __len__(self):
        return len(self.items) // self.batch_size

    def _load(self, path):
        img = Image.open(path).convert("RGB").resize((self.img_size, self.img_size))
        x = np.asarray(img, dtype=np.float32) / 255.0
        if self.augment and np.random.rand() < 0.5:
            x = x[:, ::-1]
        return x

    def __getitem__(self, idx):
        batch = self.items[idx * self.batch_size:(idx + 1) * self.batch_size]
        x = np.stack([self._load(p) for p, _ in batch])
        y = np.array([l for _, l in batch], dtype=np.float32)
        return x, y

    def on_epoch_end(self):
        if self.augment:
            np.random.shuffle(self.items)
