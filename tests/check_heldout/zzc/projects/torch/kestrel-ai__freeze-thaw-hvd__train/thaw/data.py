import numpy as np
import torch
from torch.utils.data import Dataset

MEAN = np.array([0.36, 0.38, 0.33], dtype=np.float32).reshape(3, 1, 1)
STD = np.array([0.20, 0.18, 0.18], dtype=np.float32).reshape(3, 1, 1)


class NpzTiles(Dataset):
    """Tiles saved as uint8 NHWC arrays under keys 'x' and 'y'."""

    def __init__(self, path, train=True):
        blob = np.load(path)
        self.x, self.y = blob["x"], blob["y"].astype(np.int64)
        self.train = train

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        img = self.x[i].transpose(2, 0, 1).astype(np.float32) / 255.0
        if self.train and np.random.rand() < 0.5:
            img = img[:, :, ::-1]
        img = (img - MEAN) / STD
        return torch.from_numpy(np.ascontiguousarray(img)), int(self.y[i])
