"""Cell-painting crops, split by plate so that no plate is in both train and val."""
import zlib

import numpy as np
import torch
from torch.utils.data import Dataset


class CropDataset(Dataset):
    def __init__(self, images, labels, augment=False):
        self.images, self.labels, self.augment = images, labels, augment

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        x = torch.from_numpy(self.images[i]).float().div_(255.0)
        if self.augment:
            if torch.rand(()) < 0.5:
                x = x.flip(-1)
            x = torch.rot90(x, int(torch.randint(0, 4, ())), dims=(-2, -1))
        return x, int(self.labels[i])


def plate_split(plates, val_fraction=0.2):
    """Hash plate barcodes into train/val so the split is the same on every machine."""
    keys = np.array([zlib.crc32(str(p).encode()) % 1000 for p in plates])
    val = keys < int(val_fraction * 1000)
    return np.nonzero(~val)[0], np.nonzero(val)[0]


def load_crops(path, val_fraction=0.2):
    blob = np.load(path)
    tr, va = plate_split(blob["plate"], val_fraction)
    images, labels = blob["image"], blob["label"]
    return (CropDataset(images[tr], labels[tr], augment=True),
            CropDataset(images[va], labels[va]), labels[tr])


def class_weights(train_labels, n_classes):
    counts = np.bincount(train_labels, minlength=n_classes).astype(np.float64)
    w = counts.sum() / (n_classes * np.maximum(counts, 1.0))
    return torch.tensor(w, dtype=torch.float32)
