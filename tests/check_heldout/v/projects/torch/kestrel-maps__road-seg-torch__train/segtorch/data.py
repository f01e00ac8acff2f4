import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset


class TileDataset(Dataset):
    """Aerial tiles exported from the TFRecords: tiles-*.npz with uint8 `tile` (N,H,W,3) and `mask` (N,H,W)."""

    def __init__(self, root, split, augment=False):
        tiles, masks = [], []
        for f in sorted(glob.glob(os.path.join(root, split, "tiles-*.npz"))):
            with np.load(f) as z:
                tiles.append(z["tile"])
                masks.append(z["mask"])
        self.tiles = np.concatenate(tiles)
        self.masks = (np.concatenate(masks) > 0).astype(np.int64)
        self.augment = augment

    def __len__(self):
        return len(self.tiles)

    def __getitem__(self, i):
        x = torch.from_numpy(self.tiles[i]).permute(2, 0, 1).float() / 255.0
        y = torch.from_numpy(self.masks[i])
        if self.augment and torch.rand(()) < 0.5:
            x, y = x.flip(-1), y.flip(-1)
        return x, y
