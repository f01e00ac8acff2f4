import numpy as np


def load_scan(path):
    """points (N,3) and normals (N,3) of one scanned object, normalised into the unit sphere."""
    d = np.load(path)
    pts, nrm = d["points"].astype(np.float32), d["normals"].astype(np.float32)
    pts = pts - pts.mean(0)
    pts = pts / np.linalg.norm(pts, axis=1).max()
    return pts, nrm


def split_for_worker(n, rank, world, seed=0):
    """Shared permutation (same seed on every worker), equal contiguous slices."""
    perm = np.random.default_rng(seed).permutation(n)
    per = n // world
    return perm[rank * per:(rank + 1) * per]


class PointSampler:
    def __init__(self, points, normals, batch, seed):
        self.points, self.normals, self.batch = points, normals, batch
        self.rng = np.random.default_rng(seed)
        d = np.linalg.norm(points[:, None] - points[None, :min(len(points), 2048)], axis=-1)
        self.sigma = np.sort(d, axis=1)[:, min(50, d.shape[1] - 1)].astype(np.float32)

    def sample(self):
        idx = self.rng.integers(0, len(self.points), self.batch)
        p, n = self.points[idx], self.normals[idx]
        near = p + self.rng.normal(size=p.shape).astype(np.float32) * self.sigma[idx, None]
        far = self.rng.uniform(-1.1, 1.1, size=(self.batch // 8, 3)).astype(np.float32)
        return p, n, np.concatenate([near, far], 0)
