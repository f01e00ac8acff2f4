"""Gated residual MLP for tabular classification, CPU-only, trained with Horovod.

The training function is launched in-process with horovod.run, e.g.

    python train.py --num-proc 8 --hosts cpu01:4,cpu02:4 --data covtype.npz
"""
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class GatedBlock(nn.Module):
    def __init__(self, dim, dropout):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, 2 * dim)
        self.drop = nn.Dropout(dropout)

    def forward(self, x):
        a, b = self.fc(self.norm(x)).chunk(2, dim=-1)
        return x + self.drop(a * torch.sigmoid(b))


class TabularNet(nn.Module):
    def __init__(self, n_num, cat_cards, n_classes, dim=256, depth=4, dropout=0.1):
        super().__init__()
        self.cat_emb = nn.ModuleList(nn.Embedding(c, 16) for c in cat_cards)
        self.inp = nn.Linear(n_num + 16 * len(cat_cards), dim)
        self.blocks = nn.Sequential(*[GatedBlock(dim, dropout) for _ in range(depth)])
        self.out = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, n_classes))

    def forward(self, x_num, x_cat):
        embs = [e(x_cat[:, i]) for i, e in enumerate(self.cat_emb)]
        return self.out(self.blocks(self.inp(torch.cat([x_num] + embs, dim=1))))


def load_split(path, split):
    d = np.load(path)
    return (torch.from_numpy(d[f"{split}_num"]).float(), torch.from_numpy(d[f"{split}_cat"]).long(),
            torch.from_numpy(d[f"{split}_y"]).long(), [int(c) for c in d["cat_cards"]])


def train_fn(args):
    import horovod.torch as hvd

    hvd.init()
    # CPU job: split the node's cores between the ranks that share it
    torch.set_num_threads(max(1, (os.cpu_count() or hvd.local_size()) // hvd.local_size()))
    torch.manual_seed(args.seed)

    x_num, x_cat, y, cards = load_split(args.data, "train")
    v_num, v_cat, v_y, _ = load_split(args.data, "valid")
    n_classes = int(y.max()) + 1

    model = TabularNet(x_num.shape[1], cards, n_classes, args.dim, args.depth, args.dropout)
    # gradients are summed over ranks, so the single-worker lr already acts as lr * size
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True, weight_decay=1e-5)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(), op=hvd.Sum)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    n = y.shape[0]
    per_rank = n // hvd.size()
    steps = per_rank // args.batch_size
    best = 0.0
    for epoch in range(args.epochs):
        model.train()
        # same permutation on every rank (seeded by epoch), each rank takes its own slice
        perm = torch.randperm(n, generator=torch.Generator().manual_seed(args.seed + epoch))
        mine = perm[hvd.rank() * per_rank:(hvd.rank() + 1) * per_rank]
        t0 = time.time()
        for s in range(steps):
            idx = mine[s * args.batch_size:(s + 1) * args.batch_size]
            loss = F.cross_entropy(model(x_num[idx], x_cat[idx]), y[idx])
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()

        # every rank scores an interleaved part of the validation set, then sums
        model.eval()
        with torch.no_grad():
            vi = torch.arange(hvd.rank(), v_y.shape[0], hvd.size())
            logits = model(v_num[vi], v_cat[vi])
            stats = torch.tensor([F.cross_entropy(logits, v_y[vi], reduction="sum").item(),
                                  (logits.argmax(1) == v_y[vi]).sum().item(), float(vi.numel())],
                                 dtype=torch.float64)
        stats = hvd.allreduce(stats, op=hvd.Sum, name="valid_stats")
        val_loss, val_acc = (stats[0] / stats[2]).item(), (stats[1] / stats[2]).item()
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d}  val_loss {val_loss:.4f}  val_acc {val_acc:.4f}  ({time.time() - t0:.1f}s)",
                  flush=True)
            if val_acc > best:
                best = val_acc
                torch.save({"model": model.state_dict(), "epoch": epoch, "val_acc": val_acc}, args.ckpt)
    return best


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/covtype.npz")
    p.add_argument("--ckpt", default="tabnet_best.pt")
    p.add_argument("--num-proc", type=int, default=4)
    p.add_argument("--hosts", default=None)
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--lr", type=float, default=0.05)
    p.add_argument("--dim", type=int, default=256)
    p.add_argument("--depth", type=int, default=4)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--seed", type=int, default=1234)
    args = p.parse_args()

    import horovod

    results = horovod.run(train_fn, args=(args,), num_proc=args.num_proc, hosts=args.hosts, use_gloo=True)
    print("best validation accuracy per rank:", results)


if __name__ == "__main__":
    main()
