import csv
from collections import Counter

import torch


def read_tsv(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f, delimiter="\t"))[1:]
    return [r[0] for r in rows], [int(r[1]) for r in rows]


class WordTokenizer:
    def __init__(self, texts, vocab_size):
        counts = Counter(w for t in texts for w in t.lower().split())
        self.vocab = ["[PAD]", "[CLS]", "[UNK]"] + [w for w, _ in counts.most_common(vocab_size - 3)]
        self.ids = {w: i for i, w in enumerate(self.vocab)}

    def __call__(self, text, max_len):
        ids = [1] + [self.ids.get(w, 2) for w in text.lower().split()]
        return ids[:max_len]


class TextDataset(torch.utils.data.Dataset):
    def __init__(self, texts, labels, tokenizer, max_len):
        self.items = [(tokenizer(t, max_len), y) for t, y in zip(texts, labels)]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(batch):
    longest = max(len(ids) for ids, _ in batch)
    input_ids = torch.zeros(len(batch), longest, dtype=torch.long)
    for row, (ids, _) in enumerate(batch):
        input_ids[row, :len(ids)] = torch.tensor(ids)
    return input_ids, torch.tensor([y for _, y in batch])
