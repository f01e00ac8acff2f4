#!/usr/bin/env python3
"""demand-sense, PyTorch trainer (parity port of the Keras model in demand/).

Reads the parquet-free .npz export of the weekly features:
    horovodrun -np 8 python train.py --data /datasets/demand-sense/v12-npz [--resume]
"""
import argparse
import os

import horovod.torch as hvd
import numpy as np
import torch
import torch.nn as nn

FEATURE_DIM, NUM_STORES, STORE_EMBED = 64, 1200, 12


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/datasets/demand-sense/v12-npz")
    p.add_argument("--ckpt", default="/artifacts/demand-sense-torch/last.pt")
    p.add_argument("--batch-size", type=int, default=256, help="per worker")
    p.add_argument("--lr", type=float, default=5e-4, help="single-worker learning rate")
    p.add_argument("--lr-scaling", choices=["linear", "none"], default="linear")
    p.add_argument("--epochs", type=int, default=15)
    p.add_argument("--save-every", type=int, default=3)
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--resume", action="store_true")
    return p.parse_args()


class DemandMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.store = nn.Embedding(NUM_STORES, STORE_EMBED)
        layers, d = [], FEATURE_DIM + STORE_EMBED
        for w in (256, 256, 128):
            layers += [nn.Linear(d, w), nn.ReLU(), nn.BatchNorm1d(w)]
            d = w
        self.body = nn.Sequential(*layers, nn.Linear(d, 1))

    def forward(self, x, store):
        return self.body(torch.cat([x, self.store(store)], 1)).squeeze(1)


def worker_slice(n, seed):
    """Indices of this worker: one shared permutation, strided, cut to the same length on every worker."""
    perm = np.random.RandomState(seed).permutation(n)
    per_worker = n // hvd.size()
    return perm[hvd.rank()::hvd.size()][:per_worker]


def batches(arrays, idx, batch_size, shuffle_seed=None):
    if shuffle_seed is not None:
        idx = np.random.RandomState(shuffle_seed).permutation(idx)
    for s in range(0, len(idx) - batch_size + 1, batch_size):
        b = idx[s:s + batch_size]
        yield (torch.from_numpy(arrays["x"][b]).float(), torch.from_numpy(arrays["store"][b]).long(),
               torch.from_numpy(np.log1p(arrays["units"][b])).float())


def main():
    args = parse()
    hvd.init()
    torch.manual_seed(0)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    train = dict(np.load(os.path.join(args.data, "train.npz")))
    val = dict(np.load(os.path.join(args.data, "val.npz")))
    train_idx = worker_slice(len(train["units"]), seed=17)
    val_idx = worker_slice(len(val["units"]), seed=17)

    model = DemandMLP().to(dev)
    lr = args.lr * (hvd.size() if args.lr_scaling == "linear" else 1)
    optimizer = torch.optim.Adam(model.parameters(), lr=lr)

    start_epoch = 0
    if args.resume and hvd.rank() == 0 and os.path.exists(args.ckpt):
        state = torch.load(args.ckpt, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression)
    loss_fn = nn.MSELoss()

    for epoch in range(start_epoch, args.epochs):
        model.train()
        for x, store, y in batches(train, train_idx, args.batch_size, shuffle_seed=epoch):
            optimizer.zero_grad()
            loss = loss_fn(model(x.to(dev), store.to(dev)), y.to(dev))
            loss.backward()
            optimizer.step()

        model.eval()
        sums = torch.zeros(2)
        with torch.no_grad():
            for x, store, y in batches(val, val_idx, args.batch_size):
                err = model(x.to(dev), store.to(dev)).cpu() - y
                sums += torch.stack([err.abs().sum(), torch.tensor(float(y.numel()))])
        sums = hvd.allreduce(sums, op=hvd.Sum, name="val_abs_err")
        val_mae = (sums[0] / sums[1]).item()

        if hvd.rank() == 0:
            print(f"epoch {epoch}: train mse {loss.item():.4f}  val mae(log1p) {val_mae:.4f}")
            if (epoch + 1) % args.save_every == 0 or epoch == args.epochs - 1:
                os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
                torch.save({"epoch": epoch, "model": model.state_dict(),
                            "optimizer": optimizer.state_dict()}, args.ckpt)


if __name__ == "__main__":
    main()
