#!/usr/bin/env python
"""Intraday PV power nowcasting with a small Transformer encoder (Horovod, fixed global batch).

The global batch is fixed at --global-batch windows per optimizer step and split evenly over the
workers, so the learning rate is the one tuned on a single node and does not depend on -np.
"""
import argparse
import math
import os

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


def get_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--data", default="", help=".npy array (time, features); column 0 is PV power")
    p.add_argument("--global-batch", type=int, default=512)
    p.add_argument("--lr", type=float, default=5e-4)
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--lookback", type=int, default=96)
    p.add_argument("--lead", type=int, default=8)
    p.add_argument("--ckpt-dir", default="ckpt_pv")
    p.add_argument("--ckpt-every", type=int, default=1000, help="optimizer steps")
    return p.parse_args()


def load_array(path):
    if path:
        return np.load(path).astype(np.float32)
    t = np.arange(96 * 200)
    sun = np.clip(np.sin(2 * np.pi * (t % 96) / 96 - np.pi / 2), 0, None)
    cloud = np.random.default_rng(7).uniform(0.3, 1.0, len(t))
    return np.stack([sun * cloud, sun, cloud, np.cos(2 * np.pi * t / 96)], 1).astype(np.float32)


class Windows(Dataset):
    def __init__(self, arr, lookback, lead):
        self.arr, self.lookback, self.lead = torch.from_numpy(arr), lookback, lead

    def __len__(self):
        return len(self.arr) - self.lookback - self.lead

    def __getitem__(self, i):
        j = i + self.lookback
        return self.arr[i:j], self.arr[j + self.lead - 1, 0]


class Nowcaster(nn.Module):
    def __init__(self, n_feat, d=64, heads=4, layers=2, lookback=96):
        super().__init__()
        self.inp = nn.Linear(n_feat, d)
        self.pos = nn.Parameter(torch.zeros(1, lookback, d))
        enc = nn.TransformerEncoderLayer(d, heads, 4 * d, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(enc, layers)
        self.out = nn.Linear(d, 1)

    def forward(self, x):
        h = self.encoder(self.inp(x) + self.pos)
        return self.out(h[:, -1]).squeeze(-1)


def main():
    args = get_args()
    hvd.init()
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    torch.manual_seed(0)

    arr = load_array(args.data)
    n_train = int(0.8 * len(arr))
    mu, sd = arr[:n_train].mean(0), arr[:n_train].std(0) + 1e-6   # whole training period, same on all ranks
    mu[0], sd[0] = 0.0, 1.0                                       # keep the PV target in kW/kWp
    arr = (arr - mu) / sd
    train_set = Windows(arr[:n_train], args.lookback, args.lead)
    test_set = Windows(arr[n_train:], args.lookback, args.lead)

    assert args.global_batch % hvd.size() == 0, "global batch must divide evenly"
    local_batch = args.global_batch // hvd.size()
    sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True, seed=0)
    loader = DataLoader(train_set, batch_size=local_batch, sampler=sampler, drop_last=True, num_workers=2)

    model = Nowcaster(arr.shape[1], lookback=args.lookback).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.01)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    loss_fn = nn.SmoothL1Loss()

    step = 0
    for epoch in range(args.epochs):
        model.train()
        sampler.set_epoch(epoch)
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            optimizer.step()
            step += 1
            if step % args.ckpt_every == 0 and hvd.rank() == 0:
                os.makedirs(args.ckpt_dir, exist_ok=True)
                torch.save({"step": step, "model": model.state_dict(), "norm": (mu, sd)},
                           os.path.join(args.ckpt_dir, f"step{step}.pt"))

        # test RMSE on the full held-out period, computed by rank 0 only
        if hvd.rank() == 0:
            model.eval()
            se, n = 0.0, 0
            with torch.no_grad():
                for x, y in DataLoader(test_set, batch_size=1024):
                    pred = model(x.to(device)).cpu()
                    se += ((pred - y) ** 2).sum().item()
                    n += len(y)
            print(f"epoch {epoch} step {step} test RMSE {math.sqrt(se / n):.4f}")


if __name__ == "__main__":
    main()
