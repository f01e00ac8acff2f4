import json
import random

import torch
from torch.nn.utils.rnn import pad_sequence

AMINO = "ACDEFGHIKLMNPQRSTVWY"
AA_INDEX = {a: i + 1 for i, a in enumerate(AMINO)}  # 0 = padding / unknown
SS_INDEX = {"H": 0, "E": 1, "C": 2}
IGNORE = -100


def read_records(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def encode(record, max_len):
    seq = torch.tensor([AA_INDEX.get(a, 0) for a in record["seq"][:max_len]])
    ss = torch.tensor([SS_INDEX[s] for s in record["ss3"][:max_len]])
    return seq, ss


def collate(batch):
    seqs, labels = zip(*batch)
    return pad_sequence(seqs, batch_first=True), pad_sequence(labels, batch_first=True, padding_value=IGNORE)


class SeqDataModule:
    """Reads the CB513-style jsonl splits and hands each worker its part."""

    def __init__(self, train_path, dev_path, rank, world_size, batch_size=32, max_len=700):
        self.train_path, self.dev_path = train_path, dev_path
        self.rank, self.world_size = rank, world_size
        self.batch_size, self.max_len = batch_size, max_len

    def setup(self):
        records = read_records(self.train_path)
        random.shuffle(records)
        mine = records[self.rank::self.world_size]
        self.train = [encode(r, self.max_len) for r in mine]
        dev = read_records(self.dev_path)
        self.dev = [encode(r, self.max_len) for r in dev[self.rank::self.world_size]]
        return self

    def train_batches(self, epoch):
        order = list(range(len(self.train)))
        random.Random(epoch).shuffle(order)
        for i in range(0, len(order) - self.batch_size + 1, self.batch_size):
            yield collate([self.train[j] for j in order[i:i + self.batch_size]])

    def dev_batches(self):
        for i in range(0, len(self.dev), self.batch_size):
            yield collate(self.dev[i:i + self.batch_size])

    def steps_per_epoch(self):
        return len(self.train) // self.batch_size
