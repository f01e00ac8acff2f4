import random

import torch


def load_split(prefix):
    """Pre-binarised split: a torch file with lists of src/tgt id lists (built by preprocess.py)."""
    blob = torch.load(prefix + ".pt")
    return blob["src"], blob["tgt"], blob["vocab_size"]


def batch_by_size(src, tgt, max_tokens):
    idx = sorted(range(len(src)), key=lambda i: max(len(src[i]), len(tgt[i])))
    batches, cur, width = [], [], 0
    for i in idx:
        width = max(width, len(src[i]), len(tgt[i]))
        if cur and width * (len(cur) + 1) > max_tokens:
            batches.append(cur)
            cur, width = [], max(len(src[i]), len(tgt[i]))
        cur.append(i)
    return batches + ([cur] if cur else [])


class EpochIterator:
    def __init__(self, batches, seed, rank, world):
        self.batches, self.seed, self.rank, self.world = batches, seed, rank, world

    def epoch(self, e):
        order = list(range(len(self.batches)))
        random.Random(self.seed + e).shuffle(order)
        per = len(order) // self.world
        return [self.batches[j] for j in order[self.rank * per:(self.rank + 1) * per]]


def make_tensors(src, tgt, idx, device):
    pad = torch.nn.utils.rnn.pad_sequence
    s = pad([torch.tensor(src[i]) for i in idx], batch_first=True).to(device)
    t = pad([torch.tensor(tgt[i]) for i in idx], batch_first=True).to(device)
    return s, t
