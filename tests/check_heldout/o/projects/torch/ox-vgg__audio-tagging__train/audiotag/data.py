import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class LogMelClips(Dataset):
    """<root>/<split>_feats.npy (N, frames, mels) float16 and <root>/<split>_labels.npy (N, C) uint8."""

    def __init__(self, root, split, crop_frames=None, specaug=False):
        self.x = np.load(os.path.join(root, f"{split}_feats.npy"), mmap_mode="r")
        self.y = np.load(os.path.join(root, f"{split}_labels.npy"), mmap_mode="r")
        self.crop, self.specaug = crop_frames, specaug

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        x = np.asarray(self.x[i], dtype=np.float32)
        if self.crop and x.shape[0] > self.crop:
            s = np.random.randint(0, x.shape[0] - self.crop + 1)
            x = x[s:s + self.crop]
        if self.specaug:
            f0 = np.random.randint(0, x.shape[1] - 8)
            x = x.copy()
            x[:, f0:f0 + np.random.randint(0, 8)] = 0.0
        return torch.from_numpy(x), torch.from_numpy(np.asarray(self.y[i], dtype=np.float32))


def loader(root, split, batch_size, world_size, rank, train, workers=4, seed=0):
    ds = LogMelClips(root, split, crop_frames=400 if train else None, specaug=train)
    sampler = DistributedSampler(ds, num_replicas=world_size, rank=rank, shuffle=train, seed=seed,
                                 drop_last=train)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=workers,
                      pin_memory=torch.cuda.is_available(), drop_last=train), sampler
