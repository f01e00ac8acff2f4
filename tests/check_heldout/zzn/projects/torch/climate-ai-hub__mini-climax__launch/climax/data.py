import numpy as np
import torch
from torch.utils.data import Dataset

VARIABLES = ("z500", "t850", "t2m", "u10", "v10")


class ERA5Slices(Dataset):
    """5.625-degree ERA5 fields stored as one npz per year: array `x` (T, V, 32, 64) at 6-hour steps."""

    def __init__(self, files, lead_steps=(1, 2, 4, 12), mean=None, std=None):
        self.x = np.concatenate([np.load(f)["x"] for f in files]).astype(np.float32)
        if mean is None:
            mean = self.x.mean(axis=(0, 2, 3), keepdims=True)[0]
            std = self.x.std(axis=(0, 2, 3), keepdims=True)[0]
        self.mean, self.std = mean, std
        self.x = (self.x - mean) / std
        self.leads = lead_steps
        self.n = len(self.x) - max(lead_steps)

    def __len__(self):
        return self.n * len(self.leads)

    def __getitem__(self, i):
        t, k = divmod(i, len(self.leads))
        lead = self.leads[k]
        return (torch.from_numpy(self.x[t]), torch.tensor(6.0 * lead),
                torch.from_numpy(self.x[t + lead]))
