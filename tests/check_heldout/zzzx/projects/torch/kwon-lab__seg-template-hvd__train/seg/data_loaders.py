import os
from glob import glob

import numpy as np
import torch
from torch.utils.data import Dataset

from seg.base_data_loader import BaseDataLoader


class SegFolder(Dataset):
    """data_dir/images/*.npy (H x W x 3 uint8) and data_dir/masks/*.npy (H x W uint8)"""

    def __init__(self, root, crop=128):
        self.images = sorted(glob(os.path.join(root, 'images', '*.npy')))
        self.masks = sorted(glob(os.path.join(root, 'masks', '*.npy')))
        assert len(self.images) == len(self.masks), (len(self.images), len(self.masks))
        self.crop = crop

    def __len__(self):
        return len(self.images)

    def __getitem__(self, i):
        img = np.load(self.images[i]).astype(np.float32) / 255.
        mask = np.load(self.masks[i]).astype(np.int64)
        h, w = mask.shape
        y0 = np.random.randint(0, h - self.crop + 1)
        x0 = np.random.randint(0, w - self.crop + 1)
        img = img[y0:y0 + self.crop, x0:x0 + self.crop].transpose(2, 0, 1)
        mask = mask[y0:y0 + self.crop, x0:x0 + self.crop]
        return torch.from_numpy(img.copy()), torch.from_numpy(mask.copy())


class SegFolderDataLoader(BaseDataLoader):
    def __init__(self, data_dir, batch_size, shuffle=True, validation_split=0.0, num_workers=1,
                 crop=128, num_replicas=1, rank=0):
        self.dataset = SegFolder(data_dir, crop=crop)
        super().__init__(self.dataset, batch_size, shuffle, validation_split, num_workers,
                         num_replicas=num_replicas, rank=rank)
