import os
import zlib

import numpy as np
import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler


class HashTokenizer:
    """Whitespace tokenizer hashing words into a fixed vocabulary (0 = pad)."""

    def __init__(self, vocab_size, max_len):
        self.vocab_size = vocab_size
        self.max_len = max_len

    def __call__(self, text):
        ids = [1 + zlib.crc32(w.encode()) % (self.vocab_size - 1) for w in text.lower().split()]
        ids = ids[: self.max_len]
        return torch.tensor(ids + [0] * (self.max_len - len(ids)), dtype=torch.long)


class CaptionFeatures(Dataset):
    def __init__(self, split_dir, tokenizer):
        self.feats = np.load(os.path.join(split_dir, "image_feats.npy"))
        self.items = []
        with open(os.path.join(split_dir, "captions.tsv")) as f:
            for line in f:
                idx, cap = line.rstrip("\n").split("\t", 1)
                self.items.append((int(idx), cap))
        self.tok = tokenizer

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        idx, cap = self.items[i]
        return torch.from_numpy(self.feats[idx]), self.tok(cap), idx


def build_train_loader(cfg, tokenizer, num_replicas, rank):
    ds = CaptionFeatures(os.path.join(cfg.data_dir, "train"), tokenizer)
    sampler = DistributedSampler(ds, num_replicas=num_replicas, rank=rank,
                                 shuffle=True, seed=cfg.seed, drop_last=True)
    loader = DataLoader(ds, batch_size=cfg.batch_size, sampler=sampler,
                        drop_last=True, num_workers=2)
    return loader, sampler


def build_gallery_loader(cfg, tokenizer):
    # every worker embeds the whole validation gallery; it is small
    ds = CaptionFeatures(os.path.join(cfg.data_dir, "val"), tokenizer)
    return DataLoader(ds, batch_size=256, shuffle=False)
