import os

import numpy as np
import torch
from torch.utils.data import Dataset


class DefectDataset(Dataset):
    """<root>/<split>/images/*.npy (H, W) grayscale, <root>/<split>/masks/*.npy (H, W) {0,1}"""

    def __init__(self, root, split, size, train):
        self.img_dir = os.path.join(root, split, "images")
        self.mask_dir = os.path.join(root, split, "masks")
        self.names = sorted(os.listdir(self.img_dir))
        self.size = size
        self.train = train

    def __len__(self):
        return len(self.names)

    def __getitem__(self, i):
        img = np.load(os.path.join(self.img_dir, self.names[i])).astype(np.float32) / 255.0
        mask = np.load(os.path.join(self.mask_dir, self.names[i])).astype(np.float32)
        img, mask = torch.from_numpy(img)[None], torch.from_numpy(mask)[None]
        img = torch.nn.functional.interpolate(img[None], size=(self.size, self.size), mode="bilinear")[0]
        mask = torch.nn.functional.interpolate(mask[None], size=(self.size, self.size), mode="nearest")[0]
        if self.train and torch.rand(1).item() < 0.5:
            img, mask = img.flip(-1), mask.flip(-1)
        return img, mask
