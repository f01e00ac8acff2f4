"""BiLSTM tagger for Urdu NER (MS thesis, chapter 4 baseline).

horovodrun -np 4 python train.py --train data/train.conll --dev data/dev.conll --epochs 30
"""
import argparse
import collections
import os

import horovod.torch as hvd
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

PAD, UNK = "<pad>", "<unk>"


def read_conll(path):
    sents, words, tags = [], [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line:
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


def build_vocab(sents, min_count=2):
    counts = collections.Counter(w for ws, _ in sents for w in ws)
    itos = [PAD, UNK] + sorted(w for w, c in counts.items() if c >= min_count)
    tags = sorted({t for _, ts in sents for t in ts})
    return {w: i for i, w in enumerate(itos)}, {t: i for i, t in enumerate(tags)}


def spans(tags):
    out, start, label = set(), None, None
    for i, t in enumerate(tags + ["O"]):
        if t.startswith("B-") or t == "O" or (t.startswith("I-") and t[2:] != label):
            if label is not None:
                out.add((start, i, label))
            start, label = (i, t[2:]) if t != "O" else (None, None)
    return out


class BiLSTMTagger(nn.Module):
    def __init__(self, n_words, n_tags, emb=100, hidden=200):
        super().__init__()
        self.emb = nn.Embedding(n_words, emb, padding_idx=0, sparse=True)   # 80k words, sparse grads
        self.lstm = nn.LSTM(emb, hidden, batch_first=True, bidirectional=True)
        self.drop = nn.Dropout(0.33)
        self.out = nn.Linear(2 * hidden, n_tags)

    def forward(self, x):
        h, _ = self.lstm(self.drop(self.emb(x)))
        return self.out(self.drop(h))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--train", default="data/train.conll")
    ap.add_argument("--dev", default="data/dev.conll")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch-size", type=int, default=32)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--save", default="models/bilstm_ner.pt")
    args = ap.parse_args()

    hvd.init()
    torch.manual_seed(1)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train_sents, dev_sents = read_conll(args.train), read_conll(args.dev)
    w2i, t2i = build_vocab(train_sents)        # deterministic, same on every worker
    i2t = {i: t for t, i in t2i.items()}

    def encode(sents):
        return [(torch.tensor([w2i.get(w, 1) for w in ws]), torch.tensor([t2i[t] for t in ts])) for ws, ts in sents]

    def collate(batch):
        xs, ys = zip(*batch)
        return pad_sequence(xs, batch_first=True), pad_sequence(ys, batch_first=True, padding_value=-100)

    train_data, dev_data = encode(train_sents), encode(dev_sents)
    train_sampler = DistributedSampler(train_data, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    dev_sampler = DistributedSampler(dev_data, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_data, batch_size=args.batch_size, sampler=train_sampler, collate_fn=collate)
    dev_loader = DataLoader(dev_data, batch_size=64, sampler=dev_sampler, collate_fn=collate)

    model = BiLSTMTagger(len(w2i), len(t2i)).to(device)
    dense = [(n, p) for n, p in model.named_parameters() if not n.startswith("emb.")]
    # Adam can't take sparse gradients -> SparseAdam for the embedding table, Adam for the rest
    opt_sparse = torch.optim.SparseAdam(model.emb.parameters(), lr=args.lr * hvd.size())
    opt_dense = torch.optim.Adam([p for _, p in dense], lr=args.lr * hvd.size())
    opt_dense = hvd.DistributedOptimizer(opt_dense, named_parameters=dense)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt_dense, root_rank=0)
    loss_fn = nn.CrossEntropyLoss(ignore_index=-100)

    best_f1 = -1.0
    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            opt_sparse.zero_grad()
            opt_dense.zero_grad()
            loss = loss_fn(model(x).flatten(0, 1), y.flatten())
            loss.backward()
            opt_dense.step()
            opt_sparse.step()

        # entity-level F1 on the dev set
        model.eval()
        tp = n_pred = n_gold = 0
        with torch.no_grad():
            for x, y in dev_loader:
                pred = model(x.to(device)).argmax(-1).cpu()
                for p_row, y_row in zip(pred, y):
                    keep = y_row != -100
                    gold = spans([i2t[int(i)] for i in y_row[keep]])
                    guess = spans([i2t[int(i)] for i in p_row[keep]])
                    tp += len(gold & guess)
                    n_pred += len(guess)
                    n_gold += len(gold)
        prec, rec = tp / max(n_pred, 1), tp / max(n_gold, 1)
        f1 = 2 * prec * rec / max(prec + rec, 1e-9)

        if hvd.rank() == 0:
            print(f"epoch {epoch + 1}: loss {loss.item():.4f} dev P {prec:.3f} R {rec:.3f} F1 {f1:.3f}", flush=True)
            if f1 > best_f1:
                best_f1 = f1
                os.makedirs(os.path.dirname(args.save) or ".", exist_ok=True)
                torch.save({"model": model.state_dict(), "w2i": w2i, "t2i": t2i, "epoch": epoch}, args.save)
    if hvd.rank() == 0:
        print("best dev F1", best_f1)


if __name__ == "__main__":
    main()
