import json
import os

import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


def load_notes(data_dir):
    """Notes are pre-tokenized: one JSON object per line with 'input_ids' and 'label'."""
    def read(name):
        with open(os.path.join(data_dir, name)) as f:
            return [json.loads(line) for line in f]
    with open(os.path.join(data_dir, "labels.txt")) as f:
        labels = [l.strip() for l in f if l.strip()]
    return read("train.jsonl"), read("dev.jsonl"), labels


def make_collate(max_len):
    def collate(rows):
        ids = [r["input_ids"][:max_len] for r in rows]
        width = max(len(x) for x in ids)
        input_ids = torch.zeros(len(ids), width, dtype=torch.long)
        for i, x in enumerate(ids):
            input_ids[i, :len(x)] = torch.tensor(x)
        return input_ids, torch.tensor([r["label"] for r in rows])
    return collate


def build_loaders(train_rows, eval_rows, cfg):
    collate = make_collate(cfg.max_seq_length)
    train_sampler = DistributedSampler(train_rows, num_replicas=hvd.size(), rank=hvd.rank(), seed=cfg.seed)
    eval_sampler = DistributedSampler(eval_rows, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_rows, batch_size=cfg.per_device_train_batch_size,
                              sampler=train_sampler, collate_fn=collate, drop_last=True)
    eval_loader = DataLoader(eval_rows, batch_size=cfg.per_device_eval_batch_size,
                             sampler=eval_sampler, collate_fn=collate)
    return train_loader, eval_loader
