import os
import random
from collections import Counter

import torch

PAD, BOS, EOS, UNK = 0, 1, 2, 3
SPECIALS = ["<pad>", "<s>", "</s>", "<unk>"]


def read_parallel(prefix, src, tgt):
    with open(f"{prefix}.{src}") as fs, open(f"{prefix}.{tgt}") as ft:
        return [(s.split(), t.split()) for s, t in zip(fs, ft)]


def build_vocab(pairs, cache_path, min_freq=2):
    """Joint vocabulary, built once and cached next to the data."""
    if os.path.exists(cache_path):
        with open(cache_path) as f:
            return [w.rstrip("\n") for w in f]
    counts = Counter(w for s, t in pairs for w in s + t)
    itos = SPECIALS + sorted(w for w, c in counts.items() if c >= min_freq)
    tmp = cache_path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(itos) + "\n")
    os.replace(tmp, cache_path)
    return itos


def encode(pairs, itos, max_len):
    stoi = {w: i for i, w in enumerate(itos)}
    out = []
    for s, t in pairs:
        s_ids = [stoi.get(w, UNK) for w in s][: max_len - 1] + [EOS]
        t_ids = [BOS] + [stoi.get(w, UNK) for w in t][: max_len - 2] + [EOS]
        out.append((s_ids, t_ids))
    return out


def token_batches(examples, max_tokens, seed):
    """Length-bucketed batches holding at most max_tokens (padded) tokens each."""
    order = sorted(range(len(examples)), key=lambda i: (len(examples[i][0]), len(examples[i][1])))
    batches, cur, width = [], [], 0
    for i in order:
        w = max(width, len(examples[i][0]), len(examples[i][1]))
        if cur and w * (len(cur) + 1) > max_tokens:
            batches.append(cur)
            cur, w = [], max(len(examples[i][0]), len(examples[i][1]))
        cur.append(i)
        width = w
    if cur:
        batches.append(cur)
    random.Random(seed).shuffle(batches)
    return batches


def shard_batches(batches, rank, world):
    # every rank gets the same number of batches so allreduce calls line up
    per_rank = len(batches) // world
    return batches[rank * per_rank:(rank + 1) * per_rank]


def collate(examples, idx):
    src = [torch.tensor(examples[i][0]) for i in idx]
    tgt = [torch.tensor(examples[i][1]) for i in idx]
    src = torch.nn.utils.rnn.pad_sequence(src, batch_first=True, padding_value=PAD)
    tgt = torch.nn.utils.rnn.pad_sequence(tgt, batch_first=True, padding_value=PAD)
    return src, tgt[:, :-1], tgt[:, 1:]
