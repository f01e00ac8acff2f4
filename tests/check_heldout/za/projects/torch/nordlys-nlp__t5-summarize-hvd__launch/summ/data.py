import json

import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

PAD, BOS, EOS = 0, 1, 2
IGNORE = -100


def hash_tokenize(text, vocab_size, max_len):
    # stable hashing tokenizer: the real run uses the sentencepiece ids from preprocess.py
    ids = [3 + (sum(ord(c) * 31 ** i for i, c in enumerate(w)) % (vocab_size - 3)) for w in text.split()]
    return ids[:max_len - 1] + [EOS]


class SummPairs(Dataset):
    def __init__(self, path, cfg):
        with open(path) as f:
            rows = [json.loads(l) for l in f if l.strip()]
        self.rows = [(hash_tokenize(r["document"], cfg["vocab_size"], cfg["max_src"]),
                      hash_tokenize(r["summary"], cfg["vocab_size"], cfg["max_tgt"])) for r in rows]

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        return self.rows[i]


def collate(batch):
    S = max(len(s) for s, _ in batch)
    T = max(len(t) for _, t in batch)
    src = torch.full((len(batch), S), PAD, dtype=torch.long)
    dec_in = torch.full((len(batch), T), PAD, dtype=torch.long)
    labels = torch.full((len(batch), T), IGNORE, dtype=torch.long)
    for i, (s, t) in enumerate(batch):
        src[i, :len(s)] = torch.tensor(s)
        dec_in[i, :len(t)] = torch.tensor([BOS] + t[:-1])
        labels[i, :len(t)] = torch.tensor(t)
    return src, dec_in, labels


def loaders(cfg, rank, world):
    out = []
    for path, train in ((cfg["train_file"], True), (cfg["valid_file"], False)):
        ds = SummPairs(path, cfg)
        sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=train, seed=cfg["seed"])
        out.append(DataLoader(ds, batch_size=cfg["batch_size"], sampler=sampler, collate_fn=collate,
                              drop_last=train))
    return out
