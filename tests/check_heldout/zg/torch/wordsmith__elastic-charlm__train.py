#!/usr/bin/env python
"""Character-level LSTM language model, elastic Horovod.

Launch with e.g.
    horovodrun -np 4 --min-np 2 --max-np 8 --host-discovery-script ./discover_hosts.sh \
        python train.py --data data/tinyshakespeare.txt
"""
import argparse
import math
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset

import horovod.torch as hvd


def get_args():
    p = argparse.ArgumentParser(description="elastic char-LM")
    p.add_argument("--data", default="data/input.txt")
    p.add_argument("--seq-len", type=int, default=128)
    p.add_argument("--batch-size", type=int, default=64, help="per-worker batch size")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--lr", type=float, default=2e-3, help="learning rate for a single worker")
    p.add_argument("--hidden", type=int, default=512)
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--batches-per-commit", type=int, default=50)
    p.add_argument("--checkpoint", default="checkpoints/charlm.pt")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--no-cuda", action="store_true")
    return p.parse_args()


class CharDataset(Dataset):
    def __init__(self, text, vocab, seq_len):
        self.seq_len = seq_len
        self.stoi = {c: i for i, c in enumerate(vocab)}
        self.data = torch.tensor([self.stoi[c] for c in text], dtype=torch.long)

    def __len__(self):
        return (len(self.data) - 1) // self.seq_len

    def __getitem__(self, idx):
        i = idx * self.seq_len
        chunk = self.data[i:i + self.seq_len + 1]
        return chunk[:-1], chunk[1:]


class CharLSTM(nn.Module):
    def __init__(self, vocab_size, hidden, layers):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, hidden)
        self.lstm = nn.LSTM(hidden, hidden, layers, batch_first=True, dropout=0.1)
        self.head = nn.Linear(hidden, vocab_size)

    def forward(self, x):
        out, _ = self.lstm(self.embed(x))
        return self.head(out)


def log(msg):
    if hvd.rank() == 0:
        print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


args = get_args()
hvd.init()
torch.manual_seed(args.seed)

use_cuda = torch.cuda.is_available() and not args.no_cuda
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if use_cuda else "cpu")

with open(args.data, encoding="utf-8") as f:
    text = f.read()
vocab = sorted(set(text))
split = int(0.95 * len(text))
train_set = CharDataset(text[:split], vocab, args.seq_len)
val_set = CharDataset(text[split:], vocab, args.seq_len)

train_sampler = hvd.elastic.ElasticSampler(train_set, shuffle=True, seed=args.seed)
train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler,
                          num_workers=2, pin_memory=use_cuda)

model = CharLSTM(len(vocab), args.hidden, args.layers).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())


def evaluate():
    """Sum loss and token counts over this rank's shard of the held-out text."""
    model.eval()
    sampler = torch.utils.data.distributed.DistributedSampler(
        val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    loader = DataLoader(val_set, batch_size=args.batch_size, sampler=sampler)
    total = torch.zeros(2)
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1), reduction="sum")
            total += torch.tensor([loss.item(), float(y.numel())])
    total = hvd.allreduce(total, op=hvd.Sum, name="val_totals")
    return (total[0] / total[1]).item()


def save_checkpoint(state):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(args.checkpoint) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": state.epoch, "vocab": vocab}, args.checkpoint)


def end_epoch(state):
    state.epoch += 1
    state.batch = 0
    state.train_sampler.set_epoch(state.epoch)
    state.commit()


@hvd.elastic.run
def train(state):
    for state.epoch in range(state.epoch, args.epochs):
        model.train()
        t0 = time.time()
        for idx, (x, y) in enumerate(train_loader):
            state.batch = idx
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            logits = model(x)
            loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
            loss.backward()
            optimizer.synchronize()  # wait for the averaged gradients before clipping
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            with optimizer.skip_synchronize():
                optimizer.step()
            state.train_sampler.record_batch(idx, args.batch_size)
            if idx % args.batches_per_commit == 0:
                state.commit()
            if idx % 100 == 0:
                log(f"epoch {state.epoch} batch {idx} loss {loss.item():.3f} workers {hvd.size()}")
        val_loss = evaluate()
        log(f"epoch {state.epoch} done in {time.time() - t0:.0f}s  val loss {val_loss:.3f}  "
            f"ppl {math.exp(val_loss):.2f}")
        save_checkpoint(state)
        end_epoch(state)


def on_state_reset():
    # the world changed size: keep lr proportional to the number of workers
    for group in optimizer.param_groups:
        group["lr"] = args.lr * hvd.size()
    log(f"reset: {hvd.size()} workers, lr={args.lr * hvd.size():g}")


state = hvd.elastic.TorchState(model=model, optimizer=optimizer, train_sampler=train_sampler,
                               epoch=0, batch=0)
state.register_reset_callbacks([on_state_reset])

if __name__ == "__main__":
    train(state)
