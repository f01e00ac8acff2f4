import numpy as np
import pandas as pd
import torch
from torch.utils.data import Dataset


def load_table(path, categorical, numeric, target):
    """Read a feature table written by the Spark ETL job (codes and z-scores are precomputed)."""
    df = pd.read_parquet(path)
    cats = df[categorical].to_numpy(dtype=np.int64)
    nums = df[numeric].to_numpy(dtype=np.float32)
    y = df[target].to_numpy(dtype=np.int64)
    return cats, nums, y


class PetTable(Dataset):
    def __init__(self, cats, nums, y):
        self.cats = torch.from_numpy(cats)
        self.nums = torch.from_numpy(nums)
        self.y = torch.from_numpy(y)

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.cats[i], self.nums[i], self.y[i]
