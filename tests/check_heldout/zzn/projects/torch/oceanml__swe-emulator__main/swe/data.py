"""Shallow-water trajectories from one HDF5 file, one sample = (history frames -> next frame)."""
import h5py
import numpy as np
import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader, Dataset


class SWEWindows(Dataset):
    def __init__(self, path, split, history, trajectories=None):
        with h5py.File(path, "r") as f:
            h = f[split]["h"][()]            # (n_traj, n_t, H, W)
            uv = f[split]["uv"][()]          # (n_traj, n_t, 2, H, W)
        fields = np.concatenate([h[:, :, None], uv], axis=2).astype(np.float32)
        if trajectories is not None:
            fields = fields[trajectories]
        self.fields = torch.from_numpy(fields)
        self.history = history
        self.n_t = fields.shape[1]

    def __len__(self):
        return self.fields.shape[0] * (self.n_t - self.history)

    def __getitem__(self, i):
        traj, t = divmod(i, self.n_t - self.history)
        x = self.fields[traj, t:t + self.history].flatten(0, 1)
        y = self.fields[traj, t + self.history]
        return x, y


def field_stats(path, split="train"):
    with h5py.File(path, "r") as f:
        h = f[split]["h"][()]
        uv = f[split]["uv"][()]
    mean = np.array([h.mean(), uv[:, :, 0].mean(), uv[:, :, 1].mean()], np.float32)
    std = np.array([h.std(), uv[:, :, 0].std(), uv[:, :, 1].std()], np.float32)
    return torch.from_numpy(mean), torch.from_numpy(std)


def make_train_loader(cfg):
    """Each worker reads its own trajectories, so no sampler is needed."""
    with h5py.File(cfg["path"], "r") as f:
        n_traj = f["train"]["h"].shape[0]
    mine = np.arange(n_traj)[hvd.local_rank()::hvd.size()]
    ds = SWEWindows(cfg["path"], "train", cfg["history"], trajectories=mine)
    return DataLoader(ds, batch_size=cfg["batch_size"], shuffle=True, drop_last=True,
                      num_workers=cfg["num_workers"], pin_memory=True)


def load_valid(cfg):
    with h5py.File(cfg["path"], "r") as f:
        return torch.from_numpy(np.concatenate(
            [f["valid"]["h"][()][:, :, None], f["valid"]["uv"][()]], axis=2).astype(np.float32))
