import random

import torch


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [l.strip() for l in f]


class ParallelCorpus(torch.utils.data.Dataset):
    def __init__(self, src_lines, tgt_lines, src_vocab, tgt_vocab, max_len=128):
        pairs = zip(src_lines, tgt_lines)
        self.examples = [(src_vocab.encode(s)[:max_len], tgt_vocab.encode(t)[:max_len]) for s, t in pairs]

    def __len__(self):
        return len(self.examples)

    def __getitem__(self, i):
        return self.examples[i]


class BucketBatchSampler(torch.utils.data.Sampler):
    """Length-bucketed batches, dealt out to workers after a shared shuffle."""

    def __init__(self, lengths, batch_size, num_replicas=1, rank=0, seed=0):
        self.lengths = lengths
        self.batch_size = batch_size
        self.num_replicas = num_replicas
        self.rank = rank
        self.seed = seed
        self.epoch = 0

    def set_epoch(self, epoch):
        self.epoch = epoch

    def _batches(self):
        order = sorted(range(len(self.lengths)), key=lambda i: self.lengths[i])
        batches = [order[i:i + self.batch_size] for i in range(0, len(order), self.batch_size)]
        random.Random(self.seed + self.epoch).shuffle(batches)
        usable = len(batches) - len(batches) % self.num_replicas
        return batches[:usable]

    def __iter__(self):
        return iter(self._batches()[self.rank::self.num_replicas])

    def __len__(self):
        return len(self._batches()) // self.num_replicas


def pad_collate(batch, pad_id=0):
    src = [torch.tensor(s) for s, _ in batch]
    tgt = [torch.tensor(t) for _, t in batch]
    src = torch.nn.utils.rnn.pad_sequence(src, batch_first=True, padding_value=pad_id)
    tgt = torch.nn.utils.rnn.pad_sequence(tgt, batch_first=True, padding_value=pad_id)
    return src, tgt
