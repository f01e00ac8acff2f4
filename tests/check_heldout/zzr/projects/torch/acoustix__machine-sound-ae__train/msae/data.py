import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class LogMelFrames(Dataset):
    """Concatenates `frames` consecutive log-mel frames into one vector (DCASE baseline style)."""

    def __init__(self, feature_dir, machine_types, split, frames):
        vecs, labels = [], []
        for mt in machine_types:
            path = os.path.join(feature_dir, f"{mt}_{split}.npz")
            if not os.path.exists(path):
                continue
            d = np.load(path)
            mel = d["mel"]                           # (clips, T, n_mels)
            T = mel.shape[1] - frames + 1
            v = np.concatenate([mel[:, t:t + T] for t in range(frames)], axis=2)
            vecs.append(v.reshape(-1, v.shape[-1]))
            labels.append(np.repeat(d["label"], T) if "label" in d else np.zeros(len(v) * T, np.int64))
        self.x = torch.from_numpy(np.concatenate(vecs).astype(np.float32))
        self.y = torch.from_numpy(np.concatenate(labels).astype(np.int64))

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def make_loader(cfg, split, rank, world, train=True):
    ds = LogMelFrames(cfg.feature_dir, cfg.machine_types, split, cfg.frames)
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=train)
    return DataLoader(ds, batch_size=cfg.batch_size, sampler=sampler, drop_last=train), sampler
