import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset


class HeatmapTiles(Dataset):
    """npz tiles with keys image (H,W,3 uint8), hm (C,H/4,W/4), wh (2,H/4,W/4), mask (H/4,W/4)."""

    def __init__(self, root):
        self.files = sorted(glob.glob(os.path.join(root, '*.npz')))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        d = np.load(self.files[i])
        img = torch.from_numpy(d['image']).permute(2, 0, 1).float() / 255.0
        return img, torch.from_numpy(d['hm']).float(), torch.from_numpy(d['wh']).float(), \
            torch.from_numpy(d['mask']).float()


def focal_loss(pred, gt):
    pred = pred.sigmoid().clamp(1e-4, 1 - 1e-4)
    pos = gt.eq(1).float()
    neg = 1 - pos
    pos_loss = torch.log(pred) * (1 - pred) ** 2 * pos
    neg_loss = torch.log(1 - pred) * pred ** 2 * (1 - gt) ** 4 * neg
    return -(pos_loss.sum() + neg_loss.sum()) / pos.sum().clamp(min=1)
