# -*- coding: utf-8 -*-
"""
BiLSTM POS tagger, CoNLL format.

Originally written for PyTorch 0.3 (2018); moved to horovod so we can use the
4-GPU nodes. Usage:
    horovodrun -np 4 python train.py --train data/train.conll --dev data/dev.conll
"""
from __future__ import print_function

import argparse
import io
import os
import sys
from collections import Counter

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.autograd import Variable
import torch.utils.data as data
import horovod.torch as hvd

PAD, UNK = "<pad>", "<unk>"


def read_conll(path):
    sents, words, tags = [], [], []
    with io.open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
                if words:
                    sents.append((words, tags))
                words, tags = [], []
                continue
            cols = line.split("\t")
            words.append(cols[0].lower())
            tags.append(cols[-1])
    if words:
        sents.append((words, tags))
    return sents


class Vocab(object):
    def __init__(self, tokens, min_count=1, specials=(PAD, UNK)):
        counts = Counter(tokens)
        self.itos = list(specials) + sorted(t for t, c in counts.items() if c >= min_count)
        self.stoi = {t: i for i, t in enumerate(self.itos)}

    def __len__(self):
        return len(self.itos)

    def encode(self, seq):
        unk = self.stoi.get(UNK, 0)
        return [self.stoi.get(t, unk) for t in seq]


class TaggingDataset(data.Dataset):
    def __init__(self, sents, wvocab, tvocab):
        self.items = [(wvocab.encode(w), tvocab.encode(t)) for w, t in sents]

    def __len__(self):
        return len(self.items)

    def __getitem__(self, i):
        return self.items[i]


def collate(batch):
    maxlen = max(len(w) for w, _ in batch)
    words = torch.zeros(len(batch), maxlen, dtype=torch.long)
    tags = torch.zeros(len(batch), maxlen, dtype=torch.long)
    for i, (w, t) in enumerate(batch):
        words[i, :len(w)] = torch.tensor(w)
        tags[i, :len(t)] = torch.tensor(t)
    return words, tags


class BiLSTMTagger(nn.Module):
    def __init__(self, nwords, ntags, emb=100, hidden=200, dropout=0.33):
        super(BiLSTMTagger, self).__init__()
        self.embed = nn.Embedding(nwords, emb, padding_idx=0)
        self.lstm = nn.LSTM(emb, hidden, num_layers=2, bidirectional=True,
                            batch_first=True, dropout=dropout)
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(2 * hidden, ntags)

    def forward(self, words):
        h, _ = self.lstm(self.drop(self.embed(words)))
        return self.out(self.drop(h))


parser = argparse.ArgumentParser()
parser.add_argument("--train", required=True)
parser.add_argument("--dev", required=True)
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--lr", type=float, default=2e-3)
parser.add_argument("--clip", type=float, default=5.0)
parser.add_argument("--log-every", type=int, default=100)
parser.add_argument("--out", default="tagger.pt")
args = parser.parse_args()

hvd.init()
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
torch.manual_seed(7)

train_sents = read_conll(args.train)
dev_sents = read_conll(args.dev)
wvocab = Vocab([w for ws, _ in train_sents for w in ws], min_count=2)
tvocab = Vocab([t for _, ts in train_sents for t in ts], specials=(PAD,))

train_ds = TaggingDataset(train_sents, wvocab, tvocab)
dev_ds = TaggingDataset(dev_sents, wvocab, tvocab)
train_sampler = data.distributed.DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
dev_sampler = data.distributed.DistributedSampler(dev_ds, num_replicas=hvd.size(), rank=hvd.rank(),
                                                  shuffle=False)
train_loader = data.DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler,
                               collate_fn=collate)
dev_loader = data.DataLoader(dev_ds, batch_size=args.batch_size, sampler=dev_sampler,
                             collate_fn=collate)

model = BiLSTMTagger(len(wvocab), len(tvocab))
if use_cuda:
    model = model.cuda()

optimizer = optim.Adam(model.parameters(), lr=args.lr)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def evaluate():
    model.eval()
    correct, total = 0., 0.
    for words, tags in dev_loader:
        if use_cuda:
            words, tags = words.cuda(), tags.cuda()
        words = Variable(words, volatile=True)
        pred = model(words).data.max(2)[1]
        mask = tags.ne(0)
        correct += pred.eq(tags).masked_select(mask).sum().item()
        total += mask.sum().item()
    stats = hvd.allreduce(torch.tensor([correct, total]), op=hvd.Sum, name="dev_stats")
    return (stats[0] / stats[1]).item()


best_acc = 0.
for epoch in range(1, args.epochs + 1):
    model.train()
    train_sampler.set_epoch(epoch)
    total_loss = 0.
    for i, (words, tags) in enumerate(train_loader):
        if use_cuda:
            words, tags = words.cuda(), tags.cuda()
        words, tags = Variable(words), Variable(tags)
        optimizer.zero_grad()
        scores = model(words)
        loss = F.cross_entropy(scores.view(-1, scores.size(-1)), tags.view(-1), ignore_index=0)
        loss.backward()
        optimizer.synchronize()
        nn.utils.clip_grad_norm_(model.parameters(), args.clip)
        with optimizer.skip_synchronize():
            optimizer.step()
        total_loss += loss.data[0]
        if i % args.log_every == 0 and hvd.rank() == 0:
            print("epoch %d batch %d loss %.4f" % (epoch, i, total_loss / (i + 1)))
            sys.stdout.flush()

    acc = evaluate()
    if hvd.rank() == 0:
        print("epoch %d dev acc %.4f" % (epoch, acc))
        if acc > best_acc:
            best_acc = acc
            torch.save({"model": model.state_dict(), "wvocab": wvocab.itos, "tvocab": tvocab.itos},
                       args.out)
