import numpy as np
import torch
from torch.utils.data import Dataset


class MelanomaDataset(Dataset):
    """Images were pre-resized to 128px and stored as one uint8 array (N, H, W, 3)."""

    def __init__(self, images, targets, indices, train=True):
        self.images, self.targets, self.indices, self.train = images, targets, indices, train

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, i):
        j = self.indices[i]
        img = torch.from_numpy(np.ascontiguousarray(self.images[j])).permute(2, 0, 1).float() / 255.0
        if self.train:
            if torch.rand(1).item() < 0.5:
                img = img.flip(2)
            if torch.rand(1).item() < 0.5:
                img = img.flip(1)
        return img, torch.tensor(float(self.targets[j]))
