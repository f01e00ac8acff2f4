import csv
import re
import zlib

import torch
from torch.utils.data import Dataset

_TOKEN = re.compile(r"[a-z']+")


def hash_tokens(text, vocab_size, max_len):
    ids = [1 + zlib.crc32(w.encode()) % (vocab_size - 1) for w in _TOKEN.findall(text.lower())]
    return ids[:max_len] or [0]


class ExcerptDataset(Dataset):
    def __init__(self, rows, cfg):
        self.ids = [hash_tokens(r["excerpt"], cfg.vocab_size, cfg.max_len) for r in rows]
        self.y = [float(r["target"]) for r in rows]

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        return torch.tensor(self.ids[i]), torch.tensor(self.y[i])


def collate(batch):
    toks = [b[0] for b in batch]
    offsets = torch.tensor([0] + [len(t) for t in toks[:-1]]).cumsum(0)
    return torch.cat(toks), offsets, torch.stack([b[1] for b in batch])


def load_fold(path, fold):
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    return [r for r in rows if int(r["kfold"]) != fold], [r for r in rows if int(r["kfold"]) == fold]
