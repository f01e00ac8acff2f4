import numpy as np
import torch

N_DENSE = 13
N_SPARSE = 26
ROW_BYTES = 4 * (1 + N_DENSE + N_SPARSE)


class CriteoBinary:
    """Pre-processed Criteo day file: int32 rows [label, 13 dense, 26 hashed categorical]."""

    def __init__(self, path):
        self.data = np.memmap(path, dtype=np.int32, mode="r").reshape(-1, 1 + N_DENSE + N_SPARSE)

    def __len__(self):
        return self.data.shape[0]

    def rank_slice(self, rank, world):
        """Contiguous, equally sized block of rows for this rank (the remainder is dropped)."""
        per_rank = len(self) // world
        return self.data[rank * per_rank:(rank + 1) * per_rank]


def iterate_batches(rows, batch_size, shuffle, seed):
    order = np.arange(len(rows))
    if shuffle:
        np.random.default_rng(seed).shuffle(order)
    for start in range(0, len(order) - batch_size + 1, batch_size):
        block = np.asarray(rows[np.sort(order[start:start + batch_size])])
        label = torch.from_numpy(block[:, 0].astype(np.float32))
        dense = torch.from_numpy(np.log1p(np.maximum(block[:, 1:1 + N_DENSE], 0)).astype(np.float32))
        sparse = torch.from_numpy(block[:, 1 + N_DENSE:].astype(np.int64))
        yield dense, sparse, label
