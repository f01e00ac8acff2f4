from collections import Counter

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler


def read_conll(path):
    sents, words, tags = [], [], []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line:
                if words:
                    sents.append((words, tags))
                words, tags = [], []
                continue
            w, t = line.split()[0], line.split()[-1]
            words.append(w.lower())
            tags.append(t)
    if words:
        sents.append((words, tags))
    return sents


def build_vocab(sents, max_vocab):
    counts = Counter(w for ws, _ in sents for w in ws)
    return {w: i + 2 for i, (w, _) in enumerate(counts.most_common(max_vocab))}  # 0 pad, 1 unk


def encode(sents, vocab, tag_ids):
    return [([vocab.get(w, 1) for w in ws], [tag_ids[t] for t in ts]) for ws, ts in sents]


def pad_batch(batch):
    L = max(len(x) for x, _ in batch)
    x = torch.zeros(len(batch), L, dtype=torch.long)
    y = torch.zeros(len(batch), L, dtype=torch.long)
    for i, (w, t) in enumerate(batch):
        x[i, :len(w)], y[i, :len(t)] = torch.tensor(w), torch.tensor(t)
    return x, y, x.ne(0)


def make_loader(data, batch_size, rank, world, train):
    sampler = DistributedSampler(data, num_replicas=world, rank=rank, shuffle=train)
    return DataLoader(data, batch_size=batch_size, sampler=sampler, collate_fn=pad_batch)
