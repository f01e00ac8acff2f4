import numpy as np
import torch


class EpisodeSampler:
    def __init__(self, x, y, n_way, k_shot, n_query, seed):
        self.x, self.y = x, y
        self.n_way, self.k_shot, self.n_query = n_way, k_shot, n_query
        self.rng = np.random.default_rng(seed)
        self.classes = np.unique(y)

    def sample(self):
        chosen = self.rng.choice(self.classes, self.n_way, replace=False)
        s_idx, q_idx = [], []
        for c in chosen:
            idx = self.rng.choice(np.flatnonzero(self.y == c), self.k_shot + self.n_query, replace=False)
            s_idx.append(idx[:self.k_shot]); q_idx.append(idx[self.k_shot:])
        xs = torch.from_numpy(self.x[np.concatenate(s_idx)]).float() / 255.0
        xq = torch.from_numpy(self.x[np.concatenate(q_idx)]).float() / 255.0
        ys = torch.arange(self.n_way).repeat_interleave(self.k_shot)
        yq = torch.arange(self.n_way).repeat_interleave(self.n_query)
        return xs, ys, xq, yq
