import zlib

import torch
import torch.nn as nn
import torch.nn.functional as F


class CharTrigramTokenizer:
    """Hashes character trigrams of each word (fastText style); robust to typos in product titles."""

    def __init__(self, buckets=50000, max_tokens=64):
        self.buckets, self.max_tokens = buckets, max_tokens

    def __call__(self, text):
        grams = []
        for w in text.lower().split():
            w = f"<{w}>"
            grams += [w[i:i + 3] for i in range(len(w) - 2)]
        ids = [1 + zlib.crc32(g.encode()) % (self.buckets - 1) for g in grams][: self.max_tokens]
        return ids + [0] * (self.max_tokens - len(ids))


class TextTower(nn.Module):
    def __init__(self, buckets=50000, out_dim=192):
        super().__init__()
        self.bag = nn.EmbeddingBag(buckets, 192, mode="sum", padding_idx=0)
        self.out = nn.Sequential(nn.Linear(192, 192), nn.Tanh(), nn.Linear(192, out_dim))

    def forward(self, ids):
        return F.normalize(self.out(self.bag(ids)), dim=-1)
