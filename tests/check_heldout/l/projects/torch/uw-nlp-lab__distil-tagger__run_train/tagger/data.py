import torch
from torch.utils.data import Dataset, random_split


def read_conll(path, token_col=0, tag_col=-1):
    sents, tokens, tags = [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("-DOCSTART-"):
                if tokens:
                    sents.append((tokens, tags))
                    tokens, tags = [], []
                continue
            cols = line.split()
            tokens.append(cols[token_col])
            tags.append(cols[tag_col])
    if tokens:
        sents.append((tokens, tags))
    return sents


class TaggingDataset(Dataset):
    """Word-level tags aligned to the first sub-token of every word (-100 elsewhere)."""

    def __init__(self, sents, tokenizer, label2id, max_len=128):
        self.examples = []
        for words, tags in sents:
            enc = tokenizer(words, is_split_into_words=True, truncation=True, max_length=max_len)
            labels, prev = [], None
            for wid in enc.word_ids():
                labels.append(-100 if wid is None or wid == prev else label2id[tags[wid]])
                prev = wid
            self.examples.append((enc["input_ids"], labels))

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, i):
        return self.examples[i]


def collate_batch(batch, pad_id=0):
    n = max(len(ids) for ids, _ in batch)
    input_ids = torch.full((len(batch), n), pad_id, dtype=torch.long)
    labels = torch.full((len(batch), n), -100, dtype=torch.long)
    mask = torch.zeros((len(batch), n), dtype=torch.long)
    for i, (ids, lab) in enumerate(batch):
        input_ids[i, :len(ids)] = torch.tensor(ids)
        labels[i, :len(lab)] = torch.tensor(lab)
        mask[i, :len(ids)] = 1
    return {"input_ids": input_ids, "attention_mask": mask, "labels": labels}


def load_splits(path, tokenizer, label2id, dev_fraction=0.1, max_len=128):
    """The corpus ships as one file; hold out a random dev_fraction for model selection."""
    dataset = TaggingDataset(read_conll(path), tokenizer, label2id, max_len)
    n_dev = int(len(dataset) * dev_fraction)
    train_set, dev_set = random_split(dataset, [len(dataset) - n_dev, n_dev])
    return train_set, dev_set
