import csv
import os
from collections import Counter

import torch
from torch.utils.data import Dataset

SPECIALS = ["[PAD]", "[UNK]", "[CLS]"]


def load_split(data_dir, split):
    with open(os.path.join(data_dir, f"{split}.tsv"), newline="") as f:
        reader = csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE)
        return [(row["sentence"], int(row["label"])) for row in reader]


def build_vocab(path, min_freq=2, max_size=30000):
    counts = Counter()
    with open(path, newline="") as f:
        for row in csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE):
            counts.update(row["sentence"].lower().split())
    words = [w for w, c in counts.most_common(max_size) if c >= min_freq]
    return {w: i for i, w in enumerate(SPECIALS + words)}


class SST2Dataset(Dataset):
    def __init__(self, rows, vocab, max_len):
        unk, cls = vocab["[UNK]"], vocab["[CLS]"]
        self.examples = []
        for text, label in rows:
            ids = [cls] + [vocab.get(w, unk) for w in text.lower().split()][: max_len - 1]
            self.examples.append((ids, label))

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, idx):
        return self.examples[idx]


class PadCollator:
    def __init__(self, pad_id=0):
        self.pad_id = pad_id

    def __call__(self, batch):
        width = max(len(ids) for ids, _ in batch)
        input_ids = torch.full((len(batch), width), self.pad_id, dtype=torch.long)
        for i, (ids, _) in enumerate(batch):
            input_ids[i, : len(ids)] = torch.tensor(ids)
        labels = torch.tensor([y for _, y in batch], dtype=torch.long)
        return {"input_ids": input_ids, "attention_mask": input_ids != self.pad_id, "labels": labels}
