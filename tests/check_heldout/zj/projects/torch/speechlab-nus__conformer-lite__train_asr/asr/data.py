import os

import numpy as np
import torch
from torch.utils.data import Dataset


class FbankDataset(Dataset):
    def __init__(self, feats_dir, split):
        self.feats = np.load(os.path.join(feats_dir, f"{split}_feats.npy"), mmap_mode="r")
        self.tokens = np.load(os.path.join(feats_dir, f"{split}_tokens.npy"))

    def __len__(self):
        return len(self.tokens)

    def __getitem__(self, i):
        return torch.from_numpy(np.array(self.feats[i])), torch.from_numpy(self.tokens[i]).long()


def collate(batch):
    feats = torch.stack([b[0] for b in batch])
    toks = torch.stack([b[1] for b in batch])
    return feats, toks, (toks > 0).sum(1)


def spec_augment(x, max_f=10, max_t=20):
    x = x.clone()
    f0 = np.random.randint(0, max(1, x.size(2) - max_f))
    t0 = np.random.randint(0, max(1, x.size(1) - max_t))
    x[:, :, f0:f0 + np.random.randint(0, max_f)] = 0
    x[:, t0:t0 + np.random.randint(0, max_t), :] = 0
    return x
