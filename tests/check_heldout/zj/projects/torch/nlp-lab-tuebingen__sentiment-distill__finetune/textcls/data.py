import os

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class TokenIdDataset(Dataset):
    """Pre-tokenised split: <split>_ids.npy (N, max_len) int32 and <split>_labels.npy (N,)."""

    def __init__(self, data_dir, split, max_len):
        self.ids = np.load(os.path.join(data_dir, f"{split}_ids.npy"), mmap_mode="r")
        self.labels = np.load(os.path.join(data_dir, f"{split}_labels.npy"))
        self.max_len = max_len

    def __len__(self):
        return len(self.labels)

    def __getitem__(self, i):
        ids = torch.as_tensor(np.array(self.ids[i][: self.max_len]), dtype=torch.long)
        return ids, int(self.labels[i])


def make_loader(dcfg, split, num_replicas, rank, train):
    ds = TokenIdDataset(dcfg.dir, split, dcfg.max_len)
    sampler = DistributedSampler(ds, num_replicas=num_replicas, rank=rank, shuffle=train,
                                 drop_last=train)
    return DataLoader(ds, batch_size=dcfg.batch_size, sampler=sampler, num_workers=dcfg.workers,
                      drop_last=train, pin_memory=torch.cuda.is_available())
