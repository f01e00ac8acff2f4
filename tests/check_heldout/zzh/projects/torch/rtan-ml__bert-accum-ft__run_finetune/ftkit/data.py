"""Char-level TSV classification data (label<TAB>text per line)."""
import torch
from torch.utils.data import Dataset


class TsvClassification(Dataset):
    def __init__(self, path, max_len=128, vocab_size=512):
        self.rows = []
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                label, _, text = line.rstrip("\n").partition("\t")
                if text:
                    self.rows.append((int(label), text))
        self.max_len = max_len
        self.vocab_size = vocab_size

    def __len__(self):
        return len(self.rows)

    def encode(self, text):
        ids = [2 + (ord(c) % (self.vocab_size - 2)) for c in text[: self.max_len - 1]]
        ids = [1] + ids  # [CLS]
        return ids + [0] * (self.max_len - len(ids))

    def __getitem__(self, i):
        label, text = self.rows[i]
        ids = torch.tensor(self.encode(text), dtype=torch.long)
        return {"input_ids": ids, "attention_mask": (ids != 0).long(), "labels": torch.tensor(label)}
