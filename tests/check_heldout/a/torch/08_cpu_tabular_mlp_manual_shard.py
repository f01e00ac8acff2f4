"""CPU-only Horovod job: MLP regression on a tabular dataset (HDF5 -> numpy), runs on the CPU partition.

    mpirun -np 16 --map-by socket:PE=4 python 08_cpu_tabular_mlp_manual_shard.py --data houses.npz
"""
import argparse
import math
import os

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="houses.npz")
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--batch-size", type=int, default=512)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--threads-per-rank", type=int, default=4)
    p.add_argument("--model-path", default="mlp_houses.pt")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args()


def effective_lr(base_lr):
    """linear scaling rule: global batch = per-rank batch * number of ranks"""
    return base_lr * hvd.size()


def load_data(path, seed):
    d = np.load(path)
    x, y = d["x"].astype(np.float32), d["y"].astype(np.float32)
    # the split must be identical on every rank -> fixed seed
    rng = np.random.RandomState(seed)
    idx = rng.permutation(len(x))
    n_val = len(x) // 10
    val_idx, tr_idx = idx[:n_val], idx[n_val:]
    mu, sd = x[tr_idx].mean(0), x[tr_idx].std(0) + 1e-6
    x = (x - mu) / sd
    return (x[tr_idx], y[tr_idx]), (x[val_idx], y[val_idx])


def epoch_shard(n, epoch, seed, rank, size):
    """Same permutation on all ranks (seeded by epoch), each rank takes every size-th element."""
    perm = np.random.RandomState(seed + epoch).permutation(n)
    per_rank = n // size
    return perm[rank::size][:per_rank]


class MLP(nn.Module):
    def __init__(self, d_in, widths=(256, 256, 128)):
        super().__init__()
        layers, d = [], d_in
        for w in widths:
            layers += [nn.Linear(d, w), nn.SiLU()]
            d = w
        layers.append(nn.Linear(d, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x).squeeze(-1)


def save_model(model, path, epoch, val_rmse):
    torch.save({"state_dict": model.state_dict(), "epoch": epoch, "val_rmse": val_rmse}, path)


def validate(model, xv, yv, rank, size):
    model.eval()
    xs, ys = torch.from_numpy(xv[rank::size]), torch.from_numpy(yv[rank::size])
    with torch.no_grad():
        err = (model(xs) - ys) ** 2
    all_err = hvd.allgather(err)
    return math.sqrt(all_err.mean().item())


def main():
    args = parse_args()
    hvd.init()
    rank, size = hvd.rank(), hvd.size()
    torch.set_num_threads(args.threads_per_rank)
    torch.manual_seed(args.seed)

    (xtr, ytr), (xv, yv) = load_data(args.data, args.seed)
    model = MLP(xtr.shape[1])
    lr = effective_lr(args.lr)
    opt = torch.optim.Adam(model.parameters(), lr=lr, weight_decay=1e-5)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), op=hvd.Average)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    loss_fn = nn.MSELoss()

    best = float("inf")
    for epoch in range(args.epochs):
        model.train()
        my_idx = epoch_shard(len(xtr), epoch, args.seed, rank, size)
        n_steps = len(my_idx) // args.batch_size
        running = 0.0
        for s in range(n_steps):
            b = my_idx[s * args.batch_size:(s + 1) * args.batch_size]
            xb, yb = torch.from_numpy(xtr[b]), torch.from_numpy(ytr[b])
            opt.zero_grad()
            loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            running += loss.item()
        train_mse = hvd.allreduce(torch.tensor(running / max(n_steps, 1)), name="train_mse").item()
        val_rmse = validate(model, xv, yv, rank, size)
        if rank == 0:
            print(f"epoch {epoch:02d} train_mse={train_mse:.4f} val_rmse={val_rmse:.4f}", flush=True)
            if val_rmse < best:
                best = val_rmse
                save_model(model, args.model_path, epoch, val_rmse)


if __name__ == "__main__":
    main()
