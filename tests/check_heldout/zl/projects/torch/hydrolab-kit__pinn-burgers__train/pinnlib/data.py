import numpy as np
import torch


class BurgersData:
    """Reads the reference solution of Raissi et al. (x, t, usol) from an .npz file."""

    def __init__(self, path, n_obs=None):
        raw = np.load(path)
        x, t, usol = raw["x"].ravel(), raw["t"].ravel(), raw["usol"]
        X, T = np.meshgrid(x, t, indexing="ij")
        self.grid = np.stack([X.ravel(), T.ravel()], axis=1).astype(np.float32)
        self.u = usol.reshape(-1, 1).astype(np.float32)
        self.bounds = (float(x.min()), float(x.max()), float(t.min()), float(t.max()))
        # sparse "measurements": the initial condition and the two walls
        mask = (X.ravel() == x.min()) | (X.ravel() == x.max()) | (T.ravel() == t.min())
        self.obs_x = self.grid[mask]
        self.obs_u = self.u[mask]

    def observation_tensors(self, idx):
        return torch.from_numpy(self.obs_x[idx]), torch.from_numpy(self.obs_u[idx])

    def test_tensors(self):
        g = torch.from_numpy(self.grid)
        return g[:, :1], g[:, 1:], torch.from_numpy(self.u)

    def sample_collocation(self, n, generator):
        lo = torch.tensor([self.bounds[0], self.bounds[2]])
        hi = torch.tensor([self.bounds[1], self.bounds[3]])
        return lo + (hi - lo) * torch.rand(n, 2, generator=generator)


def rank_partition(n, rank, world, seed=0):
    """Same permutation on every rank, then every world-th index; equal length per rank."""
    perm = np.random.RandomState(seed).permutation(n)
    per_rank = n // world
    return perm[rank::world][:per_rank]
