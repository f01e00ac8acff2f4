import numpy as np
import torch
from torch.utils.data import Dataset


class FaultPatches(Dataset):
    """128x128 seismic amplitude patches with binary fault masks (memory-mapped .npy)."""

    def __init__(self, root=None, split="train", n_synth=256, patch=64):
        if root is None:
            rng = np.random.default_rng(0 if split == "train" else 1)
            self.x = rng.standard_normal((n_synth, 1, patch, patch)).astype(np.float32)
            self.y = (rng.random((n_synth, 1, patch, patch)) > 0.9).astype(np.float32)
        else:
            self.x = np.load(f"{root}/{split}_x.npy", mmap_mode="r")
            self.y = np.load(f"{root}/{split}_y.npy", mmap_mode="r")

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return torch.from_numpy(np.array(self.x[i])), torch.from_numpy(np.array(self.y[i]))
