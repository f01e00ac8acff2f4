import json
import zlib

import torch


def hash_tokens(text, vocab_size, max_len):
    ids = [1 + zlib.crc32(w.encode()) % (vocab_size - 1) for w in text.lower().split()[:max_len]]
    return ids or [1]


def pad(seqs):
    out = torch.zeros(len(seqs), max(len(s) for s in seqs), dtype=torch.long)
    for i, s in enumerate(seqs):
        out[i, :len(s)] = torch.tensor(s)
    return out


def read_pairs(path, vocab_size, q_len=32, d_len=192):
    pairs = []
    with open(path) as f:
        for line in f:
            ex = json.loads(line)
            pairs.append((hash_tokens(ex["query"], vocab_size, q_len), hash_tokens(ex["positive"], vocab_size, d_len)))
    return pairs


def partition(pairs, rank, world, seed):
    """Shuffle with a seed shared by all workers, cut to a multiple of `world`, take every world-th pair.
    Every worker gets exactly len(pairs) // world pairs, disjoint from the others."""
    g = torch.Generator().manual_seed(seed)
    order = torch.randperm(len(pairs), generator=g).tolist()
    usable = len(order) - len(order) % world
    return [pairs[i] for i in order[rank:usable:world]]


def batches(pairs, batch_size, seed):
    g = torch.Generator().manual_seed(seed)
    order = torch.randperm(len(pairs), generator=g).tolist()
    for i in range(0, len(order) - batch_size + 1, batch_size):
        chunk = [pairs[j] for j in order[i:i + batch_size]]
        yield pad([q for q, _ in chunk]), pad([d for _, d in chunk])
