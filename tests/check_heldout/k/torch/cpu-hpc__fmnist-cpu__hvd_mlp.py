#!/usr/bin/env python3
"""Fashion-MNIST MLP on CPU nodes with Horovod (no GPUs on this partition).

    mpirun -np 16 --map-by socket python hvd_mlp.py --data /apps/data/fashion-mnist
"""
import argparse
import gzip
import os
import struct
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd


def read_idx(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        _, _, dtype, ndim = struct.unpack(">HBBB", f.read(4))
        shape = struct.unpack(">" + "I" * ndim, f.read(4 * ndim))
        return np.frombuffer(f.read(), dtype=np.uint8).reshape(shape)


def load_split(root, prefix):
    x = read_idx(os.path.join(root, f"{prefix}-images-idx3-ubyte.gz")).astype(np.float32) / 255.0
    y = read_idx(os.path.join(root, f"{prefix}-labels-idx1-ubyte.gz")).astype(np.int64)
    return torch.from_numpy((x.reshape(len(x), -1) - 0.2860) / 0.3530), torch.from_numpy(y)


class MLP(nn.Module):
    def __init__(self, hidden=(512, 256), p=0.2):
        super().__init__()
        dims = (784,) + tuple(hidden)
        self.body = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.drop = nn.Dropout(p)
        self.head = nn.Linear(dims[-1], 10)

    def forward(self, x):
        for layer in self.body:
            x = self.drop(F.relu(layer(x)))
        return self.head(x)


def epoch_indices(n, epoch, rank, world, seed):
    """The same permutation on every rank (seeded by epoch), then every world-th index from rank on."""
    g = torch.Generator().manual_seed(seed + epoch)
    perm = torch.randperm(n, generator=g)
    usable = n - n % world
    return perm[:usable][rank::world]


def warmup_lr(base, step, warmup_steps):
    return base * min(1.0, (step + 1) / warmup_steps)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="/usr/share/fashion-mnist")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument("--batch", type=int, default=64, help="per process")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--warmup-epochs", type=float, default=2)
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--ckpt", default="fmnist_mlp.pt")
    ap.add_argument("--ckpt-every", type=int, default=5)
    args = ap.parse_args()

    hvd.init()
    rank, world = hvd.rank(), hvd.size()
    torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))
    torch.manual_seed(args.seed)

    x_train, y_train = load_split(args.data, "train")
    x_test, y_test = load_split(args.data, "t10k")
    mine = torch.arange(rank, len(x_test), world)
    x_holdout, y_holdout = x_test[mine], y_test[mine]

    net = MLP()
    peak_lr = args.lr * world
    updater = torch.optim.SGD(net.parameters(), lr=peak_lr, momentum=0.9, weight_decay=1e-4)
    updater = hvd.DistributedOptimizer(updater, named_parameters=net.named_parameters(), op=hvd.Average)
    hvd.broadcast_parameters(net.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(updater, root_rank=0)

    steps_per_epoch = (len(x_train) // world) // args.batch
    warmup_steps = int(args.warmup_epochs * steps_per_epoch)
    step = 0
    for epoch in range(args.epochs):
        net.train()
        t0 = time.time()
        idx = epoch_indices(len(x_train), epoch, rank, world, args.seed)
        for b in range(steps_per_epoch):
            sel = idx[b * args.batch:(b + 1) * args.batch]
            for group in updater.param_groups:
                group["lr"] = warmup_lr(peak_lr, step, warmup_steps)
            updater.zero_grad()
            loss = F.cross_entropy(net(x_train[sel]), y_train[sel])
            loss.backward()
            updater.step()
            step += 1

        net.eval()
        with torch.no_grad():
            logits = net(x_holdout)
            stats = torch.tensor([F.cross_entropy(logits, y_holdout, reduction="sum").item(),
                                  (logits.argmax(1) == y_holdout).sum().item(),
                                  float(len(y_holdout))], dtype=torch.float64)
        stats = hvd.allreduce(stats, op=hvd.Sum, name="holdout")
        if rank == 0:
            print(f"epoch {epoch:2d}  holdout loss {stats[0] / stats[2]:.4f}  "
                  f"acc {100 * stats[1] / stats[2]:.2f}%  ({time.time() - t0:.1f}s)", flush=True)
            if (epoch + 1) % args.ckpt_every == 0 or epoch + 1 == args.epochs:
                torch.save({"epoch": epoch, "model": net.state_dict()}, args.ckpt)


if __name__ == "__main__":
    main()
