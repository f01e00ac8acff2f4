import glob
import os

import numpy as np
import torch
import torch.nn.functional as F
from PIL import Image
from torch.utils.data import Dataset


class PairedRandomCrop(Dataset):
    """HR crops read from disk; the LR input is made on the fly by bicubic downsampling."""

    def __init__(self, hr_dir, patch_size, scale):
        self.paths = sorted(glob.glob(os.path.join(hr_dir, '*.png')))
        self.patch, self.scale = patch_size, scale

    def __len__(self):
        return len(self.paths)

    def __getitem__(self, i):
        hr = np.asarray(Image.open(self.paths[i]).convert('RGB'), dtype=np.float32) / 255.0
        h, w = hr.shape[:2]
        y = np.random.randint(0, h - self.patch + 1)
        x = np.random.randint(0, w - self.patch + 1)
        hr = torch.from_numpy(hr[y:y + self.patch, x:x + self.patch].copy()).permute(2, 0, 1)
        lr = F.interpolate(hr[None], scale_factor=1 / self.scale, mode='bicubic',
                           align_corners=False)[0].clamp(0, 1)
        return lr, hr
