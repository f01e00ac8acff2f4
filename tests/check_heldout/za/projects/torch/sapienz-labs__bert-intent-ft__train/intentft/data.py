import json
import os

import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

PAD, UNK, CLS = 0, 1, 2


def load_vocab(path):
    with open(path) as f:
        return {w.strip(): i for i, w in enumerate(f) if w.strip()}


class IntentDataset(Dataset):
    def __init__(self, path, vocab, labels, max_len):
        with open(path) as f:
            rows = [json.loads(line) for line in f if line.strip()]
        self.items = []
        for r in rows:
            ids = [CLS] + [vocab.get(t, UNK) for t in r["text"].lower().split()]
            self.items.append((ids[:max_len], labels[r["intent"]]))

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(batch):
    width = max(len(ids) for ids, _ in batch)
    x = torch.full((len(batch), width), PAD, dtype=torch.long)
    for j, (ids, _) in enumerate(batch):
        x[j, :len(ids)] = torch.tensor(ids)
    y = torch.tensor([lab for _, lab in batch])
    return x, x.ne(PAD), y


def build_loaders(cfg, batch_size, rank, world):
    vocab = load_vocab(cfg.vocab_file)
    with open(os.path.join(cfg.data_dir, "labels.txt")) as f:
        labels = {l.strip(): i for i, l in enumerate(f) if l.strip()}
    out = {}
    for split in ("train", "dev"):
        ds = IntentDataset(os.path.join(cfg.data_dir, f"{split}.jsonl"), vocab, labels, cfg.max_len)
        sampler = DistributedSampler(ds, num_replicas=world, rank=rank, shuffle=(split == "train"),
                                     seed=cfg.seed)
        out[split] = DataLoader(ds, batch_size=batch_size, sampler=sampler, collate_fn=collate,
                                num_workers=2, drop_last=(split == "train"))
    return out["train"], out["dev"], len(vocab), len(labels)
