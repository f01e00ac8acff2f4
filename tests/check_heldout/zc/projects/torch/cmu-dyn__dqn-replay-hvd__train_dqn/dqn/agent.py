import copy

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn


class QNet(nn.Module):
    def __init__(self, obs_dim, n_actions, hidden=128):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(obs_dim, hidden), nn.ReLU(), nn.Linear(hidden, n_actions))

    def forward(self, x):
        return self.net(x)


class DQNAgent:
    def __init__(self, obs_dim, n_actions, gamma=0.99, seed=None):
        self.q = QNet(obs_dim, n_actions)
        self.target = copy.deepcopy(self.q)
        self.n_actions, self.gamma = n_actions, gamma
        self.rng = np.random.default_rng(seed)

    def act(self, obs, eps):
        if self.rng.random() < eps:
            return int(self.rng.integers(self.n_actions))
        with torch.no_grad():
            return int(self.q(torch.as_tensor(obs)).argmax())

    def loss(self, batch):
        o, a, r, o2, d = (torch.as_tensor(x) for x in batch)
        q = self.q(o).gather(1, a.unsqueeze(1)).squeeze(1)
        with torch.no_grad():
            tgt = r + self.gamma * (1 - d) * self.target(o2).max(1).values
        return F.smooth_l1_loss(q, tgt)

    def sync_target(self):
        self.target.load_state_dict(self.q.state_dict())
