"""One file per shot: shot_<id>.npz with 'signals' (T, S) float32, 'disrupted' () bool, 't_disrupt' () s.
A sample is the last `seq_len` time slices of a shot; shots with id % 10 == 0 form the validation set."""
import glob
import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class ShotDataset(Dataset):
    def __init__(self, files, seq_len):
        self.files, self.seq_len = files, seq_len
        with np.load(files[0]) as z:
            self.n_signals = z["signals"].shape[1]

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        with np.load(self.files[i]) as z:
            sig = z["signals"][-self.seq_len:].astype(np.float32)
            disr = float(z["disrupted"])
            ttd = float(z["t_disrupt"]) if disr else 0.0
        sig = np.pad(sig, ((self.seq_len - len(sig), 0), (0, 0)))
        return torch.from_numpy(sig), torch.tensor(disr), torch.tensor(ttd)


def make_loaders(shot_dir, seq_len, batch_size, rank, world):
    files = sorted(glob.glob(os.path.join(shot_dir, "shot_*.npz")))
    shot_id = [int(os.path.basename(f)[5:-4]) for f in files]
    train = ShotDataset([f for f, s in zip(files, shot_id) if s % 10], seq_len)
    val = ShotDataset([f for f, s in zip(files, shot_id) if s % 10 == 0], seq_len)
    sampler = DistributedSampler(train, num_replicas=world, rank=rank, shuffle=True, seed=0)
    val_sampler = DistributedSampler(val, num_replicas=world, rank=rank, shuffle=False)
    return (DataLoader(train, batch_size=batch_size, sampler=sampler, drop_last=True),
            DataLoader(val, batch_size=batch_size, sampler=val_sampler), sampler)
