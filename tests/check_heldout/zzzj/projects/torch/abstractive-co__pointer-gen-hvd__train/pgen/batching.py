import os
import random
from collections import Counter

import torch


def load_tsv(path, max_src, max_tgt):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            art, abs_ = line.rstrip("\n").split("\t")
            rows.append((art.split()[:max_src], abs_.split()[:max_tgt]))
    return rows


def load_vocab(path, rows, size):
    if not os.path.exists(path):
        c = Counter(w for a, b in rows for w in a + b)
        with open(path, "w") as f:
            f.write("\n".join(w for w, _ in c.most_common(size)))
    with open(path) as f:
        words = f.read().split("\n")
    return {w: i + 4 for i, w in enumerate(words)}


def bucket_batches(rows, max_tokens, seed, rank, world):
    """Sort by article length, pack up to max_tokens, shuffle, then take this rank's share."""
    order = sorted(range(len(rows)), key=lambda i: len(rows[i][0]))
    batches, cur = [], []
    for i in order:
        if cur and (len(cur) + 1) * len(rows[i][0]) > max_tokens:
            batches.append(cur)
            cur = []
        cur.append(i)
    if cur:
        batches.append(cur)
    rng = random.Random(seed + rank)
    rng.shuffle(batches)
    n = len(batches) // world
    return batches[rank::world][:n]


def tensorize(rows, idx, vocab):
    def ids(ws, eos):
        return [vocab.get(w, 3) for w in ws] + ([2] if eos else [])
    src = [torch.tensor(ids(rows[i][0], False)) for i in idx]
    tgt = [torch.tensor([1] + ids(rows[i][1], True)) for i in idx]
    pad = torch.nn.utils.rnn.pad_sequence
    return pad(src, batch_first=True), pad(tgt, batch_first=True)
