import numpy as np
import torch
from torch.utils.data import Dataset

from .dist import world_info


def load_documents(path):
    """A corpus file is an .npz with `tokens` (all documents concatenated) and `lengths`."""
    z = np.load(path)
    return np.split(z["tokens"], np.cumsum(z["lengths"])[:-1])


def shard_documents(docs, seed):
    rank, world = world_info()
    order = np.random.RandomState(seed).permutation(len(docs))
    return [docs[i] for i in order[rank::world]]


class PackedDataset(Dataset):
    """Greedy packing: documents joined with EOS and cut into ctx+1 windows."""

    def __init__(self, docs, ctx, eos_id):
        stream = np.concatenate([np.append(d, eos_id) for d in docs]).astype(np.int64)
        n = (len(stream) - 1) // ctx
        self.windows = torch.from_numpy(stream[: n * ctx + 1])
        self.ctx, self.n = ctx, n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        w = self.windows[i * self.ctx: (i + 1) * self.ctx + 1]
        return w[:-1], w[1:]
