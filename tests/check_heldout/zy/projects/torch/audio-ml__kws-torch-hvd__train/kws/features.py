"""Speech Commands keyword spotting: precomputed log-mel features (one .npy per clip)."""
import csv
import os

import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


class LogMelDataset(Dataset):
    def __init__(self, root, manifest, labels, max_frames=98):
        self.root, self.max_frames = root, max_frames
        self.label_to_idx = {l: i for i, l in enumerate(labels)}
        with open(os.path.join(root, manifest)) as f:
            self.rows = [(r["path"], r["label"]) for r in csv.DictReader(f)]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        path, label = self.rows[i]
        feat = np.load(os.path.join(self.root, path)).astype(np.float32)[:self.max_frames]
        if feat.shape[0] < self.max_frames:
            feat = np.pad(feat, ((0, self.max_frames - feat.shape[0]), (0, 0)))
        return torch.from_numpy(feat).unsqueeze(0), self.label_to_idx[label]


def make_loaders(root, labels, batch_size, workers=4):
    train_ds = LogMelDataset(root, "train.csv", labels)
    val_ds = LogMelDataset(root, "valid.csv", labels)
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=batch_size, sampler=train_sampler,
                              num_workers=workers, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=256, sampler=val_sampler, num_workers=workers)
    return train_loader, val_loader, train_sampler
