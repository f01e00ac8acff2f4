import csv

import torch
from torch.utils.data import Dataset

from .vocab import Vocab, tokenize


def read_tsv(path):
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.reader(f, delimiter="\t")
        next(reader)
        return [(row[0], int(row[1])) for row in reader]


class ReviewDataset(Dataset):
    def __init__(self, rows, vocab, max_len=400):
        self.items = [(vocab.encode(tokenize(text))[:max_len], label) for text, label in rows]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        ids, label = self.items[i]
        return torch.tensor(ids, dtype=torch.long), label


def pad_collate(batch):
    ids, labels = zip(*batch)
    lengths = torch.tensor([max(len(x), 1) for x in ids])
    out = torch.zeros(len(ids), int(lengths.max()), dtype=torch.long)
    for i, x in enumerate(ids):
        out[i, :len(x)] = x
    return out, lengths, torch.tensor(labels)


def build_datasets(train_path, test_path, max_vocab):
    train_rows, test_rows = read_tsv(train_path), read_tsv(test_path)
    vocab = Vocab.build((t for t, _ in train_rows), max_size=max_vocab)
    return ReviewDataset(train_rows, vocab), ReviewDataset(test_rows, vocab), vocab
