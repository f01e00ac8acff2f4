import json
import os

import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class CharVocab:
    """Byte-level vocabulary; cached as json so every run sees the same ids."""

    def __init__(self, chars):
        self.itos = ["<pad>", "<s>", "</s>", "<unk>"] + chars
        self.stoi = {c: i for i, c in enumerate(self.itos)}

    @classmethod
    def load_or_build(cls, path, texts):
        if os.path.exists(path):
            with open(path) as f:
                return cls(json.load(f))
        chars = sorted({c for t in texts for c in t})
        with open(path, "w") as f:
            json.dump(chars, f)
        return cls(chars)

    def encode(self, text, max_len):
        return [1] + [self.stoi.get(c, 3) for c in text[: max_len - 2]] + [2]

    def decode(self, ids):
        return "".join(self.itos[i] for i in ids if i > 3)


class SummaryDataset(Dataset):
    def __init__(self, jsonl, vocab, max_src=512, max_tgt=128):
        with open(jsonl) as f:
            rows = [json.loads(line) for line in f]
        self.items = [(vocab.encode(r["document"], max_src), vocab.encode(r["summary"], max_tgt), r["summary"])
                      for r in rows]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def pad_collate(batch):
    src = torch.nn.utils.rnn.pad_sequence([torch.tensor(b[0]) for b in batch], batch_first=True)
    tgt = torch.nn.utils.rnn.pad_sequence([torch.tensor(b[1]) for b in batch], batch_first=True)
    return src, tgt, [b[2] for b in batch]


def make_loader(ds, batch_size, rank, world, shuffle):
    sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=shuffle)
    return DataLoader(ds, batch_size=batch_size, sampler=sampler, collate_fn=pad_collate, num_workers=2)
