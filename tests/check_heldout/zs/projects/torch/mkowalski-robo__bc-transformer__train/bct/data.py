import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset


def load_episodes(data_dir, synthetic=0, obs_dim=20, act_dim=7):
    if synthetic:
        rng = np.random.default_rng(1234)
        return [{"obs": rng.normal(size=(t, obs_dim)).astype(np.float32),
                 "actions": rng.uniform(-2, 2, size=(t, act_dim)).astype(np.float32)}
                for t in rng.integers(40, 120, size=synthetic)]
    eps = []
    for path in sorted(glob.glob(os.path.join(data_dir, "*.npz"))):
        with np.load(path) as f:
            eps.append({"obs": f["obs"].astype(np.float32), "actions": f["actions"].astype(np.float32)})
    return eps


def action_stats(episodes):
    acts = np.concatenate([e["actions"] for e in episodes], 0)
    return {"mean": acts.mean(0), "std": acts.std(0) + 1e-6}


class WindowDataset(Dataset):
    """All length-`horizon` windows over a list of episodes."""

    def __init__(self, episodes, horizon, stats):
        self.episodes, self.horizon, self.stats = episodes, horizon, stats
        self.index = [(i, s) for i, e in enumerate(episodes)
                      for s in range(len(e["obs"]) - horizon + 1)]

    def __len__(self):
        return len(self.index)

    def __getitem__(self, k):
        i, s = self.index[k]
        e = self.episodes[i]
        obs = e["obs"][s:s + self.horizon]
        act = (e["actions"][s:s + self.horizon] - self.stats["mean"]) / self.stats["std"]
        return torch.from_numpy(obs), torch.from_numpy(act.astype(np.float32))
