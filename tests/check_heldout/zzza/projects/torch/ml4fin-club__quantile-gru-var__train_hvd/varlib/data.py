import numpy as np
import torch
from torch.utils.data import Dataset


def simulate_returns(n_days=3000, n_tickers=20, seed=0):
    """GARCH(1,1)-ish returns so that tail quantiles move with volatility."""
    rng = np.random.default_rng(seed)
    r = np.zeros((n_days, n_tickers), np.float32)
    var = np.full(n_tickers, 1e-4)
    for t in range(1, n_days):
        var = 1e-6 + 0.08 * r[t - 1] ** 2 + 0.9 * var
        r[t] = rng.standard_t(5, n_tickers) * np.sqrt(var) * 0.8
    dates = np.datetime64("2009-01-01") + np.arange(n_days)
    return dates, r


class PanelWindows(Dataset):
    """One sample = (ticker, day): the ticker's last `lookback` standardised returns -> next return."""

    def __init__(self, r, days, lookback, scale):
        self.r = (r / scale).astype(np.float32)
        self.items = [(d, j) for d in days if d >= lookback for j in range(r.shape[1])]
        self.lookback = lookback

    def __len__(self):
        return len(self.items)

    def __getitem__(self, k):
        d, j = self.items[k]
        return torch.from_numpy(self.r[d - self.lookback:d, j:j + 1]), torch.tensor(self.r[d, j])


def train_val(dates, r, val_start, lookback):
    cut = int(np.searchsorted(dates, np.datetime64(val_start)))
    scale = r[:cut].std(axis=0, keepdims=True) + 1e-8   # train window only
    return (PanelWindows(r, range(cut), lookback, scale),
            PanelWindows(r, range(cut, len(r)), lookback, scale))
