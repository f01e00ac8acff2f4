import numpy as np
import torch
from torch.utils.data import Dataset

# column order of data/churn_clean.csv (produced by notebooks/01_clean.ipynb)
FEATURES = ["tenure", "monthly_charges", "total_charges", "n_services", "contract_len", "support_calls"]
TARGET = "churned"


def load_frame(path):
    """Returns a structured array; the cleaned csv already has a fixed row order."""
    return np.genfromtxt(path, delimiter=",", names=True, dtype=np.float32)


def make_tensors(arr):
    x = np.stack([arr[c] for c in FEATURES], axis=1).astype(np.float32)
    x = (x - x.mean(0)) / (x.std(0) + 1e-6)
    y = arr[TARGET].astype(np.float32)
    return torch.from_numpy(x), torch.from_numpy(y)


class ChurnDataset(Dataset):
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]
