import h5py
import numpy as np
import torch


def load_block(path, rank, size):
    """Contiguous block of showers for this rank (np.array_split), read straight from HDF5."""
    with h5py.File(path, "r") as f:
        n = f["energy"].shape[0]
        lo_hi = np.array_split(np.arange(n), size)[rank]
        lo, hi = int(lo_hi[0]), int(lo_hi[-1]) + 1
        cond = np.stack([np.log10(f["energy"][lo:hi]), f["theta"][lo:hi]], axis=1).astype(np.float32)
        layers = f["layers"][lo:hi].reshape(hi - lo, -1).astype(np.float32)
    return torch.from_numpy(cond), torch.from_numpy(np.log1p(layers)), n


def batches(cond, target, batch, n_steps, generator):
    perm = torch.randperm(len(cond), generator=generator)
    for s in range(n_steps):
        idx = perm[s * batch:(s + 1) * batch]
        yield cond[idx], target[idx]
