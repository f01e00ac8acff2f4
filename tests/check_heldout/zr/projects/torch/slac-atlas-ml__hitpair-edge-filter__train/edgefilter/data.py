import os

import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader, DistributedSampler
import horovod.torch as hvd

FEATURES = ("r", "phi", "z", "eta", "cell_count", "cell_val")


class HitPairs(Dataset):
    """Candidate edges from the module-map stage: pair features (2 x 6 hit features + dphi, deta)."""

    def __init__(self, event_dir, first, n_events):
        feats, labels = [], []
        for ev in range(first, first + n_events):
            path = os.path.join(event_dir, f"event{ev:09d}.npz")
            if not os.path.exists(path):
                continue
            d = np.load(path)
            feats.append(d["pair_features"].astype(np.float32))
            labels.append(d["y"].astype(np.float32))
        self.x = torch.from_numpy(np.concatenate(feats))
        self.y = torch.from_numpy(np.concatenate(labels))

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def build_loaders(s):
    train = HitPairs(s.event_dir, 1000, s.n_train_events)
    val = HitPairs(s.event_dir, 1000 + s.n_train_events, s.n_val_events)
    tr_sampler = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True, drop_last=True)
    va_sampler = DistributedSampler(val, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    return (DataLoader(train, batch_size=s.batch_size, sampler=tr_sampler, drop_last=True),
            DataLoader(val, batch_size=4 * s.batch_size, sampler=va_sampler), tr_sampler)
