import random

import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset


def read_utt_list(path):
    with open(path) as f:
        rows = [line.split() for line in f if line.strip()]
    speakers = sorted({spk for spk, _ in rows})
    index = {spk: i for i, spk in enumerate(speakers)}
    return [(p, index[spk]) for spk, p in rows]


def shard_list(items, rank, world):
    items = list(items)
    random.shuffle(items)
    per = len(items) // world
    return items[rank::world][:per]


class CropDataset(Dataset):
    def __init__(self, items, crop):
        self.items, self.crop = items, crop

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        path, spk = self.items[i]
        feats = np.load(path)
        if feats.shape[0] > self.crop:
            start = random.randint(0, feats.shape[0] - self.crop)
            feats = feats[start:start + self.crop]
        else:
            feats = np.pad(feats, ((0, self.crop - feats.shape[0]), (0, 0)), mode="wrap")
        return torch.from_numpy(feats).float(), spk


def train_loader(cfg, rank, world):
    items = shard_list(read_utt_list(cfg.data.train_list), rank, world)
    return DataLoader(CropDataset(items, cfg.data.crop_frames), batch_size=cfg.data.batch_size,
                      shuffle=True, drop_last=True, num_workers=2)


def read_trials(path):
    with open(path) as f:
        return [(int(t), a, b) for t, a, b in (line.split() for line in f if line.strip())]
