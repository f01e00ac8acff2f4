"""7-Scenes frames pre-resized into one npz: images uint8 (N, S, S, 3), t (N, 3), q (N, 4)."""
import numpy as np
import torch


class Frames:
    def __init__(self, path, split):
        d = np.load(path)
        self.img = d[f"{split}_images"]
        self.t = d[f"{split}_t"].astype(np.float32)
        self.q = d[f"{split}_q"].astype(np.float32)

    def __len__(self):
        return len(self.img)

    def batch(self, idx, augment=False):
        x = self.img[idx].astype(np.float32) / 255.0
        if augment:
            x = x * np.random.uniform(0.8, 1.2, size=(len(idx), 1, 1, 1)).astype(np.float32)
        x = torch.from_numpy(np.ascontiguousarray(x.transpose(0, 3, 1, 2)))
        return x, (torch.from_numpy(self.t[idx]), torch.from_numpy(self.q[idx]))


def partition(n, world_size, rank, epoch, seed):
    """Shuffle 0..n-1 with a seed every worker shares, then hand out every world_size-th index.
    The shards differ by at most one sample; the last batch of a shard may be short."""
    perm = np.random.RandomState(seed + epoch).permutation(n)
    return perm[rank::world_size]


def iterate(frames, indices, batch_size, augment=False):
    for s in range(0, len(indices), batch_size):
        yield frames.batch(indices[s:s + batch_size], augment=augment)
