# -*- coding: utf-8 -*-
"""BiLSTM tagger for CoNLL-2003 NER, multi-GPU with Horovod.

Example:
    horovodrun -np 4 -H localhost:4 python train.py --train data/eng.train --dev data/eng.testa
"""
import argparse
import os
import random
from collections import Counter

import numpy as np
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader, Dataset

import horovod.torch as hvd

PAD, UNK = "<pad>", "<unk>"


def read_conll(path):
    sents, words, tags = [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("-DOCSTART-"):
                if words:
                    sents.append((words, tags))
                    words, tags = [], []
                continue
            cols = line.split()
            words.append(cols[0])
            tags.append(cols[-1])
    if words:
        sents.append((words, tags))
    return sents


class NERDataset(Dataset):
    def __init__(self, sents, w2i, t2i):
        self.data = [([w2i.get(w.lower(), 1) for w in ws], [t2i[t] for t in ts]) for ws, ts in sents]

    def __len__(self):
        return len(self.data)

    def __getitem__(self, i):
        w, t = self.data[i]
        return torch.tensor(w), torch.tensor(t)


def collate(batch):
    words, tags = zip(*batch)
    return pad_sequence(words, batch_first=True), pad_sequence(tags, batch_first=True, padding_value=-100)


class BiLSTMTagger(nn.Module):
    def __init__(self, n_words, n_tags, emb=100, hidden=200, dropout=0.5):
        super().__init__()
        self.emb = nn.Embedding(n_words, emb, padding_idx=0)
        self.lstm = nn.LSTM(emb, hidden, num_layers=2, bidirectional=True, batch_first=True, dropout=dropout)
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(2 * hidden, n_tags)

    def forward(self, x):
        h, _ = self.lstm(self.drop(self.emb(x)))
        return self.out(self.drop(h))


def spans(tags):
    """BIO tags -> set of (type, start, end)."""
    out, start, typ = set(), None, None
    for i, t in enumerate(tags + ["O"]):
        if t == "O" or t.startswith("B-") or (t.startswith("I-") and t[2:] != typ):
            if typ is not None:
                out.add((typ, start, i))
            start, typ = (i, t[2:]) if t != "O" else (None, None)
    return out


def span_f1(gold_seqs, pred_seqs):
    tp = fp = fn = 0
    for g, p in zip(gold_seqs, pred_seqs):
        gs, ps = spans(g), spans(p)
        tp += len(gs & ps)
        fp += len(ps - gs)
        fn += len(gs - ps)
    prec = tp / max(1, tp + fp)
    rec = tp / max(1, tp + fn)
    return 2 * prec * rec / max(1e-8, prec + rec)


@torch.no_grad()
def evaluate(model, loader, i2t, device):
    model.eval()
    gold, pred = [], []
    for x, y in loader:
        logits = model(x.to(device))
        p = logits.argmax(-1).cpu()
        for yi, pi in zip(y, p):
            keep = yi != -100
            gold.append([i2t[int(t)] for t in yi[keep]])
            pred.append([i2t[int(t)] for t in pi[keep]])
    model.train()
    return span_f1(gold, pred)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/eng.train")
    ap.add_argument("--dev", default="data/eng.testa")
    ap.add_argument("--save-dir", default="checkpoints")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--clip", type=float, default=5.0)
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()

    hvd.init()
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_sents = read_conll(args.train)
    dev_sents = read_conll(args.dev)
    counts = Counter(w.lower() for ws, _ in train_sents for w in ws)
    w2i = {PAD: 0, UNK: 1}
    for w, c in counts.items():
        if c >= 2:
            w2i[w] = len(w2i)
    tagset = sorted({t for _, ts in train_sents for t in ts})
    t2i = {t: i for i, t in enumerate(tagset)}
    i2t = {i: t for t, i in t2i.items()}

    train_loader = DataLoader(NERDataset(train_sents, w2i, t2i), batch_size=args.batch_size,
                              shuffle=True, collate_fn=collate, num_workers=2)
    dev_loader = DataLoader(NERDataset(dev_sents, w2i, t2i), batch_size=128, collate_fn=collate)

    model = BiLSTMTagger(len(w2i), len(t2i)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    criterion = nn.CrossEntropyLoss(ignore_index=-100)

    best_f1 = 0.0
    for epoch in range(1, args.epochs + 1):
        total_loss = 0.0
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            logits = model(x)
            loss = criterion(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
            loss.backward()
            optimizer.synchronize()
            nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            with optimizer.skip_synchronize():
                optimizer.step()
            total_loss += loss.item()

        f1 = evaluate(model, dev_loader, i2t, device)
        if hvd.rank() == 0:
            print(f"epoch {epoch:02d} loss {total_loss / len(train_loader):.4f} dev F1 {f1 * 100:.2f}")
            if f1 > best_f1:
                best_f1 = f1
                os.makedirs(args.save_dir, exist_ok=True)
                torch.save({"model": model.state_dict(), "w2i": w2i, "t2i": t2i, "epoch": epoch},
                           os.path.join(args.save_dir, "best.pt"))


if __name__ == "__main__":
    main()
