import numpy as np
import torch
from torch.utils.data import Dataset

from .registry import DATASETS


@DATASETS.register_module()
class NpzSlices(Dataset):
    """2-D slices stored as one npz: images (N, H, W) float32, masks (N, H, W) uint8."""

    def __init__(self, path, flip=False):
        blob = np.load(path)
        self.images, self.masks, self.flip = blob["images"], blob["masks"], flip

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        img, mask = self.images[i], self.masks[i]
        if self.flip and np.random.rand() < 0.5:
            img, mask = img[:, ::-1], mask[:, ::-1]
        return (torch.from_numpy(np.ascontiguousarray(img))[None].float(),
                torch.from_numpy(np.ascontiguousarray(mask)).long())
