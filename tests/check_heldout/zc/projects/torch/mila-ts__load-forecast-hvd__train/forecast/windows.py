import torch
from torch.utils.data import Dataset


class SlidingWindows(Dataset):
    """(history, horizon) pairs cut from one long multivariate series."""

    def __init__(self, series, history=168, horizon=24, stride=1):
        self.x = torch.as_tensor(series)
        self.history, self.horizon = history, horizon
        self.starts = list(range(0, len(series) - history - horizon + 1, stride))

    def __len__(self):
        return len(self.starts)

    def __getitem__(self, i):
        s = self.starts[i]
        h = s + self.history
        return self.x[s:h], self.x[h:h + self.horizon]
