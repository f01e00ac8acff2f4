import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset


def _windows(track, obs_len, pred_len, stride):
    n = obs_len + pred_len
    for s in range(0, len(track) - n + 1, stride):
        yield track[s:s + n]


class TrajectoryWindows(Dataset):
    """Text files of `frame ped_id x y`; every pedestrian track is cut into 20-step windows."""

    def __init__(self, root, split, obs_len=8, pred_len=12, stride=1, augment=False):
        self.obs_len, self.pred_len, self.augment = obs_len, pred_len, augment
        windows = []
        for path in sorted(glob.glob(os.path.join(root, split, "*.txt"))):
            data = np.loadtxt(path, dtype=np.float32)
            for pid in np.unique(data[:, 1]):
                track = data[data[:, 1] == pid][:, 2:4]
                windows.extend(_windows(track, obs_len, pred_len, stride))
        self.windows = np.stack(windows) if windows else np.zeros((0, obs_len + pred_len, 2), np.float32)

    def __len__(self):
        return len(self.windows)

    def __getitem__(self, i):
        w = self.windows[i].copy()
        if self.augment:
            theta = np.random.uniform(0, 2 * np.pi)
            rot = np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]], np.float32)
            w = w @ rot.T
        w = w - w[self.obs_len - 1]
        obs, fut = w[:self.obs_len], w[self.obs_len:]
        obs_rel = np.diff(obs, axis=0, prepend=obs[:1])
        return torch.from_numpy(obs_rel), torch.from_numpy(fut)
