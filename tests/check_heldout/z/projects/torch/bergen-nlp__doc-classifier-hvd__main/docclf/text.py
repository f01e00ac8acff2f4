import json
import re
import zlib

import torch

_TOKEN = re.compile(r"[a-z0-9]+")


def hash_tokens(text, buckets, max_tokens):
    toks = _TOKEN.findall(text.lower())[:max_tokens]
    return [zlib.crc32(t.encode()) % buckets for t in toks] or [0]


def read_jsonl(path, labels, buckets, max_tokens):
    label_id = {l: i for i, l in enumerate(labels)}
    docs, ys = [], []
    with open(path) as f:
        for line in f:
            row = json.loads(line)
            docs.append(hash_tokens(row["text"], buckets, max_tokens))
            ys.append(label_id[row["label"]])
    return docs, ys


def collate(docs, ys):
    offsets = torch.tensor([0] + [len(d) for d in docs[:-1]]).cumsum(0)
    flat = torch.tensor([t for d in docs for t in d])
    return flat, offsets, torch.tensor(ys)


class BagOfHashes(torch.nn.Module):
    def __init__(self, buckets, dim, n_classes):
        super().__init__()
        self.emb = torch.nn.EmbeddingBag(buckets, dim, mode="mean")
        self.out = torch.nn.Linear(dim, n_classes)

    def forward(self, flat, offsets):
        return self.out(torch.relu(self.emb(flat, offsets)))
