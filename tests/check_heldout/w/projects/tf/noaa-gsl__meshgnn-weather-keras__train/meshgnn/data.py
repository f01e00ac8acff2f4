import os

import numpy as np
import keras


class IncrementSequence(keras.utils.PyDataset):
    """state(t) -> state(t+6h) - state(t) on the mesh nodes, from a memory-mapped (T, nodes, vars) array.
    Each rank gets one contiguous block of start times of equal length."""

    def __init__(self, data_dir, split, batch_size, rank, size, shuffle=True, seed=0, **kw):
        super().__init__(**kw)
        self.arr = np.load(os.path.join(data_dir, f"{split}.npy"), mmap_mode="r")
        stats = np.load(os.path.join(data_dir, "stats.npz"))
        self.mean, self.std = stats["mean"], stats["std"]
        n_pairs = self.arr.shape[0] - 1
        per_rank = n_pairs // size
        self.starts = np.arange(rank * per_rank, (rank + 1) * per_rank)
        self.batch_size, self.shuffle = batch_size, shuffle
        self.rng = np.random.default_rng(seed + rank)
        self.on_epoch_end()

    def __len__(self):
        return len(self.starts) // self.batch_size

    def on_epoch_end(self):
        self.order = self.rng.permutation(self.starts) if self.shuffle else self.starts

    def __getitem__(self, i):
        t = self.order[i * self.batch_size:(i + 1) * self.batch_size]
        x0 = (np.asarray(self.arr[t], dtype="float32") - self.mean) / self.std
        x1 = (np.asarray(self.arr[t + 1], dtype="float32") - self.mean) / self.std
        return x0, x1 - x0


def load_adjacency(data_dir):
    a = np.load(os.path.join(data_dir, "mesh_adjacency.npz"))["A"].astype("float32")
    deg = a.sum(axis=1, keepdims=True)
    return a / np.maximum(deg, 1.0)
