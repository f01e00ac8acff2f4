import numpy as np
import torch
from torch.utils.data import Dataset


class Normalizer:
    def __init__(self, lo, hi):
        self.lo, self.hi = lo, hi

    @classmethod
    def fit(cls, x):
        return cls(x.min(0), x.max(0))

    def __call__(self, x):
        return 2.0 * (x - self.lo) / np.maximum(self.hi - self.lo, 1e-6) - 1.0


class SequenceDataset(Dataset):
    """(obs history, future action chunk) pairs cut from a replay file of episodes."""

    def __init__(self, obs, actions, episode_ends, obs_horizon=2, pred_horizon=16, norms=None):
        self.obs_n, self.act_n = norms or (Normalizer.fit(obs), Normalizer.fit(actions))
        self.obs, self.actions = self.obs_n(obs).astype(np.float32), self.act_n(actions).astype(np.float32)
        self.oh, self.ph = obs_horizon, pred_horizon
        self.starts, start = [], 0
        for end in episode_ends:
            self.starts += list(range(start, end - obs_horizon - pred_horizon + 2))
            start = end

    def __len__(self):
        return len(self.starts)

    def __getitem__(self, i):
        s = self.starts[i]
        o = self.obs[s:s + self.oh].reshape(-1)
        a = self.actions[s + self.oh - 1:s + self.oh - 1 + self.ph]
        return torch.from_numpy(o), torch.from_numpy(a)
