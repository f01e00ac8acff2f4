import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset

# Sentinel-1 HH/HV backscatter + AMSR2 brightness temperature, resampled to 256x256 scenes
CHANNELS = ('hh', 'hv', 'tb18h', 'tb36h')


class SeaIceScenes(Dataset):
    def __init__(self, root, split, augment=False):
        self.files = sorted(glob.glob(os.path.join(root, split, '*.npz')))
        self.augment = augment

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        scene = np.load(self.files[i])
        x = np.stack([scene[c] for c in CHANNELS]).astype(np.float32)
        x = (x - x.mean(axis=(1, 2), keepdims=True)) / (x.std(axis=(1, 2), keepdims=True) + 1e-6)
        y = scene['sic'].astype(np.int64)  # sea-ice concentration in 11 classes, 255 = land
        if self.augment and np.random.rand() < 0.5:
            x, y = x[:, ::-1], y[::-1]
        return torch.from_numpy(x.copy()), torch.from_numpy(y.copy())
