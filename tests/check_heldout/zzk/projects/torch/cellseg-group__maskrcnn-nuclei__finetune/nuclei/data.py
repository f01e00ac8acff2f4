import os
import random

import numpy as np
import torch
from PIL import Image
from torchvision.transforms import functional as F


class NucleiDataset(torch.utils.data.Dataset):
    """DSB2018 stage1 layout: <root>/<image_id>/images/<image_id>.png and <root>/<image_id>/masks/*.png"""

    def __init__(self, root, ids=None, train=False):
        self.root = root
        self.ids = sorted(ids if ids is not None else os.listdir(root))
        self.train = train

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        iid = self.ids[i]
        img = Image.open(os.path.join(self.root, iid, "images", f"{iid}.png")).convert("RGB")
        mdir = os.path.join(self.root, iid, "masks")
        masks = np.stack([np.array(Image.open(os.path.join(mdir, f))) > 0 for f in sorted(os.listdir(mdir))])
        boxes = []
        for m in masks:
            ys, xs = np.where(m)
            boxes.append([xs.min(), ys.min(), xs.max() + 1, ys.max() + 1])
        img = F.to_tensor(img)
        masks = torch.as_tensor(masks, dtype=torch.uint8)
        boxes = torch.as_tensor(boxes, dtype=torch.float32)
        if self.train and random.random() < 0.5:
            img, masks = img.flip(-1), masks.flip(-1)
            boxes[:, [0, 2]] = img.shape[-1] - boxes[:, [2, 0]]
        return img, {"boxes": boxes, "labels": torch.ones(len(boxes), dtype=torch.int64), "masks": masks}


def train_val_ids(root, val_fraction=0.1):
    ids = sorted(os.listdir(root))
    n_val = max(1, int(len(ids) * val_fraction))
    return ids[n_val:], ids[:n_val]


def worker_split(ids, rank, world_size):
    """Shuffle the image ids and give every worker a strided slice of them."""
    ids = list(ids)
    random.shuffle(ids)
    ids = ids[: len(ids) - len(ids) % world_size]
    return ids[rank::world_size]


def collate(batch):
    return tuple(zip(*batch))
