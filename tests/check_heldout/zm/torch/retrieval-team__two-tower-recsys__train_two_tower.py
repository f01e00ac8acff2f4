#!/usr/bin/env python
"""Two-tower retrieval model (user tower / item tower) with in-batch sampled softmax.

Interactions come from an .npz with `user_feats` (U x F_u), `item_feats` (I x F_i) and
`pairs` (N x 2 user,item).  Evaluation: recall@k / MRR on the held-out last interaction
of each user against the full item corpus.

Launch:  horovodrun -np 4 -H localhost:4 python train_two_tower.py --data data/ml1m_tt.npz
"""
import argparse
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

parser = argparse.ArgumentParser(description="two-tower retrieval")
parser.add_argument("--data", default="data/ml1m_tt.npz")
parser.add_argument("--dim", type=int, default=64)
parser.add_argument("--batch-size", type=int, default=1024, help="per-worker batch size")
parser.add_argument("--lr", type=float, default=0.05)
parser.add_argument("--temperature", type=float, default=0.07)
parser.add_argument("--epochs", type=int, default=10)
parser.add_argument("--topk", type=int, nargs="+", default=[10, 50, 100])
parser.add_argument("--save", default="tt_ckpt.pt")
parser.add_argument("--no-cuda", action="store_true")


class Tower(nn.Module):
    def __init__(self, in_dim, dim):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 256), nn.ReLU(), nn.Linear(256, 128),
                                 nn.ReLU(), nn.Linear(128, dim))

    def forward(self, x):
        return F.normalize(self.net(x), dim=-1)


class TwoTower(nn.Module):
    def __init__(self, user_dim, item_dim, dim):
        super().__init__()
        self.user = Tower(user_dim, dim)
        self.item = Tower(item_dim, dim)


def in_batch_loss(u, v, temperature):
    logits = u @ v.t() / temperature
    target = torch.arange(u.size(0), device=u.device)
    return F.cross_entropy(logits, target)


@torch.no_grad()
def evaluate(model, user_feats, item_feats, test_pairs, ks, device):
    model.eval()
    items = model.item(item_feats.to(device))
    hits = {k: 0 for k in ks}
    rr = 0.0
    for chunk in torch.split(test_pairs, 4096):
        u = model.user(user_feats[chunk[:, 0]].to(device))
        scores = u @ items.t()
        target = scores.gather(1, chunk[:, 1:2].to(device))
        rank = (scores > target).sum(1) + 1
        for k in ks:
            hits[k] += (rank <= k).sum().item()
        rr += (1.0 / rank.float()).sum().item()
    n = len(test_pairs)
    return {f"recall@{k}": hits[k] / n for k in ks} | {"mrr": rr / n}


def main():
    args = parser.parse_args()
    hvd.init()
    use_cuda = torch.cuda.is_available() and not args.no_cuda
    if use_cuda:
        torch.cuda.set_device(hvd.rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    torch.manual_seed(42)

    z = np.load(args.data)
    user_feats = torch.from_numpy(z["user_feats"]).float()
    item_feats = torch.from_numpy(z["item_feats"]).float()
    train_pairs = torch.from_numpy(z["train_pairs"]).long()
    test_pairs = torch.from_numpy(z["test_pairs"]).long()

    train_ds = TensorDataset(train_pairs)
    sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=sampler, drop_last=True)

    model = TwoTower(user_feats.shape[1], item_feats.shape[1], args.dim).to(device)
    optimizer = torch.optim.Adagrad(model.parameters(), lr=args.lr)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    for epoch in range(args.epochs):
        model.train()
        sampler.set_epoch(epoch)
        t0, running = time.time(), 0.0
        for (pairs,) in loader:
            u = model.user(user_feats[pairs[:, 0]].to(device))
            v = model.item(item_feats[pairs[:, 1]].to(device))
            loss = in_batch_loss(u, v, args.temperature)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            running += loss.item()

        if hvd.rank() == 0:
            metrics = evaluate(model, user_feats, item_feats, test_pairs, args.topk, device)
            msg = " ".join(f"{k}={v:.4f}" for k, v in metrics.items())
            print(f"epoch {epoch} loss {running / max(len(loader), 1):.4f} {msg} "
                  f"({time.time() - t0:.0f}s)", flush=True)
            torch.save({"epoch": epoch, "model": model.state_dict()}, args.save)


if __name__ == "__main__":
    main()
