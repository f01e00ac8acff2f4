import numpy as np


class EpisodeGenerator:
    def __init__(self, x, y, n_way, k_shot, n_query, seed):
        self.x = x.astype("float32") / 255.0
        self.y = y
        self.n_way, self.k_shot, self.n_query = n_way, k_shot, n_query
        self.rng = np.random.default_rng(seed)
        self.index = {c: np.flatnonzero(y == c) for c in np.unique(y)}

    def __call__(self):
        classes = self.rng.choice(list(self.index), self.n_way, replace=False)
        picks = [self.rng.choice(self.index[c], self.k_shot + self.n_query, replace=False) for c in classes]
        support = np.concatenate([p[: self.k_shot] for p in picks])
        query = np.concatenate([p[self.k_shot:] for p in picks])
        return self.x[support], self.x[query]
