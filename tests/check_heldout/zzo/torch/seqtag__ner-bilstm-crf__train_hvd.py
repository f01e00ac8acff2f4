"""BiLSTM sequence tagger for CoNLL-2003 NER, data-parallel with Horovod.

Usage:
    horovodrun -np 4 python train_hvd.py --train data/eng.train --dev data/eng.testa
"""
import argparse
import os
import time

import horovod.torch as hvd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


def read_conll(path):
    sents, words, tags = [], [], []
    with open(path) as f:
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


class TaggingDataset(Dataset):
    def __init__(self, sents, word2id, tag2id):
        self.data = [([word2id.get(w.lower(), 1) for w in ws], [tag2id[t] for t in ts]) for ws, ts in sents]

    def __len__(self):
        return len(self.data)

    def __getitem__(self, idx):
        return self.data[idx]


def pad_batch(batch):
    n = max(len(w) for w, _ in batch)
    words = torch.zeros(len(batch), n, dtype=torch.long)
    tags = torch.full((len(batch), n), -100, dtype=torch.long)
    for i, (w, t) in enumerate(batch):
        words[i, :len(w)] = torch.tensor(w)
        tags[i, :len(t)] = torch.tensor(t)
    return words, tags


class BiLSTMTagger(nn.Module):
    def __init__(self, vocab, n_tags, emb=100, hidden=200):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb, padding_idx=0)
        self.lstm = nn.LSTM(emb, hidden, batch_first=True, bidirectional=True)
        self.drop = nn.Dropout(0.5)
        self.fc = nn.Linear(2 * hidden, n_tags)

    def forward(self, x):
        h, _ = self.lstm(self.drop(self.emb(x)))
        return self.fc(self.drop(h))


def spans(tags):
    out, start, label = set(), None, None
    for i, t in enumerate(tags + ["O"]):
        if t == "O" or t.startswith("B-") or (t.startswith("I-") and t[2:] != label):
            if label is not None:
                out.add((start, i, label))
            start, label = (i, t[2:]) if t != "O" else (None, None)
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--train", default="data/eng.train")
    parser.add_argument("--dev", default="data/eng.testa")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--grad-accum", type=int, default=4)
    parser.add_argument("--lr", type=float, default=1e-3)
    parser.add_argument("--epochs", type=int, default=25)
    parser.add_argument("--clip", type=float, default=5.0)
    parser.add_argument("--out", default="ner_ckpt")
    args = parser.parse_args()

    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    torch.manual_seed(1234)

    train_sents, dev_sents = read_conll(args.train), read_conll(args.dev)
    vocab = sorted({w.lower() for ws, _ in train_sents for w in ws})
    word2id = {w: i + 2 for i, w in enumerate(vocab)}
    tag_set = sorted({t for _, ts in train_sents for t in ts})
    tag2id = {t: i for i, t in enumerate(tag_set)}

    train_ds = TaggingDataset(train_sents, word2id, tag2id)
    dev_ds = TaggingDataset(dev_sents, word2id, tag2id)
    sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    dev_sampler = DistributedSampler(dev_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=sampler, collate_fn=pad_batch)
    dev_loader = DataLoader(dev_ds, batch_size=64, sampler=dev_sampler, collate_fn=pad_batch)

    model = BiLSTMTagger(len(word2id) + 2, len(tag_set)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    criterion = nn.CrossEntropyLoss(ignore_index=-100)

    for epoch in range(args.epochs):
        model.train()
        sampler.set_epoch(epoch)
        t0 = time.time()
        optimizer.zero_grad()
        for i, (words, tags) in enumerate(train_loader):
            logits = model(words.to(device))
            loss = criterion(logits.view(-1, logits.size(-1)), tags.to(device).view(-1)) / args.grad_accum
            loss.backward()
            if (i + 1) % args.grad_accum == 0:
                optimizer.synchronize()
                nn.utils.clip_grad_norm_(model.parameters(), args.clip)
                with optimizer.skip_synchronize():
                    optimizer.step()
                optimizer.zero_grad()

        model.eval()
        counts = torch.zeros(3)
        with torch.no_grad():
            for words, tags in dev_loader:
                pred = model(words.to(device)).argmax(-1).cpu()
                for p, g in zip(pred, tags):
                    keep = g != -100
                    ps = spans([tag_set[k] for k in p[keep].tolist()])
                    gs = spans([tag_set[k] for k in g[keep].tolist()])
                    counts += torch.tensor([len(ps & gs), len(ps), len(gs)], dtype=torch.float)
        tp, n_pred, n_gold = hvd.allreduce(counts, op=hvd.Sum, name="ner_counts").tolist()
        prec, rec = tp / max(n_pred, 1), tp / max(n_gold, 1)
        f1 = 2 * prec * rec / max(prec + rec, 1e-8)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: dev P {prec:.4f} R {rec:.4f} F1 {f1:.4f} ({time.time() - t0:.0f}s)")
            os.makedirs(args.out, exist_ok=True)
            torch.save({"model": model.state_dict(), "word2id": word2id, "tags": tag_set},
                       os.path.join(args.out, f"epoch{epoch}.pt"))


if __name__ == "__main__":
    main()
