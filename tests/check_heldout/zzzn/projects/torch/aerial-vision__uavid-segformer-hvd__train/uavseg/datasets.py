import glob
import os
import random

import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader

# UAVid palette -> train ids
CLASSES = ("clutter", "building", "road", "tree", "low_veg", "moving_car", "static_car", "human")


def list_tiles(root, split):
    imgs = sorted(glob.glob(os.path.join(root, split, "images", "*.png")))
    return [(p, p.replace("/images/", "/labels/")) for p in imgs]


def partition(items, rank, world, seed):
    """Same shuffle on every worker (shared seed), then a strided slice per worker."""
    items = list(items)
    random.Random(seed).shuffle(items)
    return items[rank::world]


class UAVidTiles(Dataset):
    def __init__(self, items, crop, train, num_classes=8, synthetic=False):
        self.items = items
        self.crop = crop
        self.train = train
        self.num_classes = num_classes
        self.synthetic = synthetic

    def __len__(self):
        return len(self.items)

    def _read(self, i):
        if self.synthetic:
            g = np.random.default_rng(i)
            return (g.integers(0, 255, (self.crop * 2, self.crop * 2, 3), dtype=np.uint8),
                    g.integers(0, self.num_classes, (self.crop * 2, self.crop * 2)).astype(np.int64))
        import cv2
        img_p, lbl_p = self.items[i]
        return cv2.imread(img_p)[:, :, ::-1], cv2.imread(lbl_p, cv2.IMREAD_GRAYSCALE).astype(np.int64)

    def __getitem__(self, i):
        img, lbl = self._read(i)
        if self.train:
            h, w = lbl.shape
            y, x = np.random.randint(0, h - self.crop + 1), np.random.randint(0, w - self.crop + 1)
            img, lbl = img[y:y + self.crop, x:x + self.crop], lbl[y:y + self.crop, x:x + self.crop]
            if np.random.rand() < 0.5:
                img, lbl = img[:, ::-1], lbl[:, ::-1]
            if np.random.rand() < 0.5:
                img, lbl = img[::-1], lbl[::-1]
        img = torch.from_numpy(np.ascontiguousarray(img.transpose(2, 0, 1))).float().div_(255.)
        return img, torch.from_numpy(np.ascontiguousarray(lbl))


def make_loaders(cfg, rank, world):
    if cfg.synthetic:
        train_items, val_items = list(range(32)), list(range(8))
    else:
        train_items, val_items = list_tiles(cfg.data_root, "train"), list_tiles(cfg.data_root, "val")
    train_ds = UAVidTiles(partition(train_items, rank, world, cfg.seed), cfg.crop, True,
                          cfg.num_classes, cfg.synthetic)
    val_ds = UAVidTiles(partition(val_items, rank, world, cfg.seed), cfg.crop, False,
                        cfg.num_classes, cfg.synthetic)
    train_dl = DataLoader(train_ds, batch_size=cfg.batch_size, shuffle=True, drop_last=True,
                          num_workers=cfg.workers, pin_memory=True)
    val_dl = DataLoader(val_ds, batch_size=1, shuffle=False, num_workers=cfg.workers)
    return train_dl, val_dl
