import io
import random
from collections import Counter

import torch
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
from torch.nn.utils.rnn import pad_sequence

PAD, BOS, EOS, UNK = 0, 1, 2, 3


class Vocab:
    def __init__(self, counter, min_freq):
        self.itos = ['<pad>', '<s>', '</s>', '<unk>'] + sorted(w for w, c in counter.items() if c >= min_freq)
        self.stoi = {w: i for i, w in enumerate(self.itos)}
        self.bos, self.eos, self.pad = BOS, EOS, PAD

    def __len__(self):
        return len(self.itos)

    def encode(self, words):
        return [self.stoi.get(w, UNK) for w in words] + [EOS]

    def decode(self, ids):
        out = []
        for i in ids:
            if i == EOS:
                break
            out.append(self.itos[i])
        return ' '.join(out)


def load_pairs(path, max_len=20):
    pairs = []
    with io.open(path, encoding='utf-8') as f:
        for line in f:
            parts = line.rstrip('\n').split('\t')
            if len(parts) < 2:
                continue
            s, t = parts[0].lower().split(), parts[1].lower().split()
            if 0 < len(s) <= max_len and 0 < len(t) <= max_len:
                pairs.append((s, t))
    return pairs


def build_vocabs(pairs, min_freq=2):
    return Vocab(Counter(w for s, _ in pairs for w in s), min_freq), Vocab(Counter(w for _, t in pairs for w in t), min_freq)


class PairDataset(Dataset):
    def __init__(self, pairs, sv, tv):
        self.items = [(torch.tensor(sv.encode(s)), torch.tensor(tv.encode(t))) for s, t in pairs]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(batch):
    src, tgt = zip(*batch)
    return pad_sequence(src, padding_value=PAD), pad_sequence(tgt, padding_value=PAD)


def make_loaders(pairs, sv, tv, batch_size, rank, world, seed=0, valid_frac=0.05):
    pairs = list(pairs)
    random.Random(seed).shuffle(pairs)         # same order on every worker
    n_valid = max(1, int(len(pairs) * valid_frac))
    train_ds = PairDataset(pairs[n_valid:], sv, tv)
    valid_ds = PairDataset(pairs[:n_valid], sv, tv)
    train_sampler = DistributedSampler(train_ds, num_replicas=world, rank=rank, shuffle=True, seed=seed)
    valid_sampler = DistributedSampler(valid_ds, num_replicas=world, rank=rank, shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=batch_size, sampler=train_sampler, collate_fn=collate)
    valid_loader = DataLoader(valid_ds, batch_size=batch_size, sampler=valid_sampler, collate_fn=collate)
    return train_loader, valid_loader, train_sampler
