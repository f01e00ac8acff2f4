"""Word-level LSTM language model (WikiText-2 style token files), elastic Horovod.

horovodrun -np 8 --min-np 4 --max-np 16 --host-discovery-script ./discover_hosts.sh \
    python elastic_lstm_lm.py --data ~/data/wikitext2
"""
import argparse
import math
import os

import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader
import horovod.torch as hvd

p = argparse.ArgumentParser()
p.add_argument("--data", default="data/wikitext2")
p.add_argument("--bptt", type=int, default=35)
p.add_argument("--batch-size", type=int, default=20)
p.add_argument("--emsize", type=int, default=650)
p.add_argument("--nhid", type=int, default=650)
p.add_argument("--lr", type=float, default=1.0)
p.add_argument("--clip", type=float, default=0.25)
p.add_argument("--epochs", type=int, default=40)
p.add_argument("--ckpt-dir", default="ckpt_lm")
p.add_argument("--batches-per-commit", type=int, default=200)
args = p.parse_args()


class TokenChunks(Dataset):
    """Corpus cut into independent bptt+1 chunks so it can be sampled like any dataset."""

    def __init__(self, path, vocab, bptt):
        ids = []
        with open(path) as f:
            for line in f:
                for w in line.split() + ["<eos>"]:
                    ids.append(vocab.setdefault(w, len(vocab)))
        ids = torch.tensor(ids)
        n = (len(ids) - 1) // bptt
        self.x = ids[: n * bptt].view(n, bptt)
        self.y = ids[1: n * bptt + 1].view(n, bptt)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


class LM(nn.Module):
    def __init__(self, ntok, emsize, nhid):
        super().__init__()
        self.emb = nn.Embedding(ntok, emsize)
        self.rnn = nn.LSTM(emsize, nhid, 2, dropout=0.5, batch_first=True)
        self.drop = nn.Dropout(0.5)
        self.out = nn.Linear(nhid, ntok)

    def forward(self, x):
        h, _ = self.rnn(self.drop(self.emb(x)))
        return self.out(self.drop(h))


hvd.init()
torch.cuda.set_device(hvd.local_rank())
dev = torch.device("cuda")

vocab = {}
train_set = TokenChunks(os.path.join(args.data, "train.txt"), vocab, args.bptt)
valid_set = TokenChunks(os.path.join(args.data, "valid.txt"), vocab, args.bptt)

train_sampler = hvd.elastic.ElasticSampler(train_set, shuffle=True)
train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, drop_last=True)
valid_sampler = hvd.elastic.ElasticSampler(valid_set, shuffle=False)
valid_loader = DataLoader(valid_set, batch_size=args.batch_size, sampler=valid_sampler)

model = LM(len(vocab), args.emsize, args.nhid).to(dev)
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr * hvd.size())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
criterion = nn.CrossEntropyLoss()


def metric_average(v, name):
    return hvd.allreduce(torch.tensor(v), name=name).item()


def evaluate():
    model.eval()
    tot, n = 0.0, 0
    with torch.no_grad():
        for x, y in valid_loader:
            x, y = x.to(dev), y.to(dev)
            tot += criterion(model(x).view(-1, len(vocab)), y.view(-1)).item() * x.size(0)
            n += x.size(0)
    return metric_average(tot / max(n, 1), "val_loss")


@hvd.elastic.run
def train(state):
    for state.epoch in range(state.epoch, args.epochs):
        model.train()
        state.train_sampler.set_epoch(state.epoch)
        for state.batch, (x, y) in enumerate(train_loader, start=state.batch):
            x, y = x.to(dev), y.to(dev)
            optimizer.zero_grad()
            loss = criterion(model(x).view(-1, len(vocab)), y.view(-1))
            loss.backward()
            optimizer.synchronize()
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            with optimizer.skip_synchronize():
                optimizer.step()
            state.train_sampler.record_batch(state.batch, args.batch_size)
            if state.batch % args.batches_per_commit == 0:
                state.commit()
        state.batch = 0

        val_loss = evaluate()
        if hvd.rank() == 0:
            print(f"| epoch {state.epoch:3d} | valid loss {val_loss:5.2f} | ppl {math.exp(val_loss):8.2f}")
            os.makedirs(args.ckpt_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "epoch": state.epoch}, os.path.join(args.ckpt_dir, "lm.pt"))
        state.commit()


def on_state_reset():
    # world size changed: rescale the learning rate
    for group in optimizer.param_groups:
        group["lr"] = args.lr * hvd.size()


state = hvd.elastic.TorchState(model=model, optimizer=optimizer, train_sampler=train_sampler, epoch=0, batch=0)
state.register_reset_callbacks([on_state_reset])
train(state)
