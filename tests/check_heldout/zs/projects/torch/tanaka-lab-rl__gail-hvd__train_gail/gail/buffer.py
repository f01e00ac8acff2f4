import os

import numpy as np
import torch
from torch.utils.data import TensorDataset


def load_expert(path, obs_dim=11, act_dim=3, n_fake=0):
    if n_fake or not os.path.exists(path):
        rng = np.random.default_rng(7)
        n = n_fake or 4096
        obs = rng.normal(size=(n, obs_dim)).astype(np.float32)
        act = np.tanh(obs[:, :act_dim] * 0.5).astype(np.float32)
    else:
        d = np.load(path)
        obs = np.concatenate(list(d["observations"]), 0).astype(np.float32)
        act = np.concatenate(list(d["actions"]), 0).astype(np.float32)
    return TensorDataset(torch.from_numpy(obs), torch.from_numpy(act))
