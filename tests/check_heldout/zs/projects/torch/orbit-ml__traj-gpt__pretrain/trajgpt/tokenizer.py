import numpy as np


class BinTokenizer:
    """Per-dimension quantile bins for continuous actions (RT-1 / Gato style)."""

    def __init__(self, n_bins):
        self.n_bins = n_bins
        self.edges = None

    def fit(self, actions):
        qs = np.linspace(0, 1, self.n_bins + 1)[1:-1]
        self.edges = np.quantile(actions, qs, axis=0).T
        return self

    def encode(self, actions):
        toks = np.stack([np.searchsorted(self.edges[d], actions[:, d]) for d in range(actions.shape[1])], 1)
        return toks.reshape(-1)
