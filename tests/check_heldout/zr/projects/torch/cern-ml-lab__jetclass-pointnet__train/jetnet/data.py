import glob
import os

import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd


class JetPointCloud(Dataset):
    """Jets stored as per-file npz shards: x (N, P, F) particle features,
    y (N,) label (1 = top/W jet, 0 = QCD), w (N,) event weight."""

    def __init__(self, files, max_particles=64):
        xs, ys, ws = [], [], []
        for f in files:
            arr = np.load(f)
            xs.append(arr["x"][:, :max_particles].astype(np.float32))
            ys.append(arr["y"].astype(np.float32))
            ws.append(arr["w"].astype(np.float32) if "w" in arr else np.ones(len(arr["y"]), np.float32))
        self.x = torch.from_numpy(np.concatenate(xs))
        self.y = torch.from_numpy(np.concatenate(ys))
        self.w = torch.from_numpy(np.concatenate(ws))

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i], self.w[i]


def list_files(root, split):
    files = sorted(glob.glob(os.path.join(root, split, "*.npz")))
    if not files:
        raise FileNotFoundError(f"no npz files under {root}/{split}")
    return files


def make_loader(root, split, batch_size, workers=2, shuffle=True):
    ds = JetPointCloud(list_files(root, split))
    # one replica per GPU
    sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.local_rank(),
                                 shuffle=shuffle, drop_last=shuffle)
    loader = DataLoader(ds, batch_size=batch_size, sampler=sampler,
                        num_workers=workers, pin_memory=torch.cuda.is_available(),
                        drop_last=shuffle)
    return loader, sampler
