import json

import torch
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class SummaryJsonl(Dataset):
    def __init__(self, path, tokenizer, max_src=512, max_tgt=128):
        with open(path, encoding="utf-8") as f:
            self.rows = [json.loads(line) for line in f if line.strip()]
        self.tok = tokenizer
        self.max_src, self.max_tgt = max_src, max_tgt

    def __len__(self):
        return len(self.rows)

    def __getitem__(self, i):
        row = self.rows[i]
        src = self.tok(row["document"], max_length=self.max_src, truncation=True)["input_ids"]
        tgt = self.tok(row["summary"], max_length=self.max_tgt, truncation=True)["input_ids"]
        return src, tgt


def make_collate(pad_id):
    def collate(batch):
        srcs, tgts = zip(*batch)
        def pad(seqs, value):
            width = max(len(s) for s in seqs)
            return torch.tensor([s + [value] * (width - len(s)) for s in seqs])
        input_ids = pad(srcs, pad_id)
        labels = pad(tgts, -100)
        return {"input_ids": input_ids, "attention_mask": (input_ids != pad_id).long(), "labels": labels}
    return collate


def build_dataloader(path, tokenizer, batch_size, train, rank, world_size, seed=42):
    ds = SummaryJsonl(path, tokenizer)
    sampler = DistributedSampler(ds, num_replicas=world_size, rank=rank, shuffle=train, seed=seed)
    loader = DataLoader(ds, batch_size=batch_size, sampler=sampler, num_workers=2,
                        collate_fn=make_collate(tokenizer.pad_token_id), drop_last=train)
    return loader, sampler
