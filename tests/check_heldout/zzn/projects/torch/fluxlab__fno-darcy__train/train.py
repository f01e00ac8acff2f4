#!/usr/bin/env python
"""Train a 2-D Fourier neural operator on Darcy flow (permeability -> pressure).

    horovodrun -np 4 python train.py --data data/piececonst_r85.npz --epochs 500
"""
import argparse
import os
import time

import torch
import horovod.torch as hvd

from fno import dist
from fno.data import UnitGaussianNormalizer, load_darcy, rank_indices
from fno.losses import LpLoss
from fno.spectral import FNO2d


def parse_args():
    p = argparse.ArgumentParser(description="FNO / Darcy")
    p.add_argument("--data", default="data/piececonst_r85.npz")
    p.add_argument("--ntrain", type=int, default=1000)
    p.add_argument("--ntest", type=int, default=200)
    p.add_argument("--sub", type=int, default=1)
    p.add_argument("--modes", type=int, default=12)
    p.add_argument("--width", type=int, default=32)
    p.add_argument("--batch-size", type=int, default=20, help="per worker")
    p.add_argument("--lr", type=float, default=1e-3, help="single-worker learning rate")
    p.add_argument("--epochs", type=int, default=500)
    p.add_argument("--step-size", type=int, default=100)
    p.add_argument("--gamma", type=float, default=0.5)
    p.add_argument("--save-every", type=int, default=50)
    p.add_argument("--out", default="runs/fno_darcy")
    p.add_argument("--resume", default="")
    return p.parse_args()


def main():
    args = parse_args()
    device = dist.setup()
    torch.manual_seed(0)

    a_train, u_train, a_test, u_test = load_darcy(args.data, args.ntrain, args.ntest, args.sub)
    a_norm = UnitGaussianNormalizer(a_train)
    u_norm = UnitGaussianNormalizer(u_train)
    a_train, a_test = a_norm.encode(a_train), a_norm.encode(a_test)
    u_train = u_norm.encode(u_train)
    u_norm.to(device)

    idx = rank_indices(len(a_train), hvd.rank(), hvd.size(), seed=1234)
    train_loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(a_train[idx], u_train[idx]),
        batch_size=args.batch_size, shuffle=True, drop_last=True)
    test_loader = torch.utils.data.DataLoader(
        torch.utils.data.TensorDataset(a_test[hvd.rank()::hvd.size()], u_test[hvd.rank()::hvd.size()]),
        batch_size=args.batch_size)

    model = FNO2d(args.modes, args.width).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size(), weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.step_size, gamma=args.gamma)

    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    start_epoch = 0
    if args.resume and os.path.isfile(args.resume):
        ckpt = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        start_epoch = ckpt["epoch"] + 1

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    rel_l2 = LpLoss(size_average=False)
    if dist.is_root():
        os.makedirs(args.out, exist_ok=True)

    for epoch in range(start_epoch, args.epochs):
        model.train()
        t0 = time.time()
        train_err, n_seen = 0.0, 0
        for a, u in train_loader:
            a, u = a.to(device), u.to(device)
            optimizer.zero_grad()
            pred = model(a)
            loss = rel_l2(u_norm.decode(pred), u_norm.decode(u))
            loss.backward()
            optimizer.step()
            train_err += loss.item()
            n_seen += a.shape[0]
        scheduler.step()

        model.eval()
        test_err, n_test = 0.0, 0
        with torch.no_grad():
            for a, u in test_loader:
                a, u = a.to(device), u.to(device)
                test_err += rel_l2(u_norm.decode(model(a)), u).item()
                n_test += a.shape[0]
        train_err, n_train, test_err, n_test = dist.sum_all(
            [train_err, n_seen, test_err, n_test], name="epoch_errors")

        if dist.is_root():
            print(f"epoch {epoch:4d} | {time.time() - t0:5.1f}s | train relL2 {train_err / n_train:.4f} "
                  f"| test relL2 {test_err / n_test:.4f} | lr {scheduler.get_last_lr()[0]:.2e}", flush=True)
            if (epoch + 1) % args.save_every == 0 or epoch + 1 == args.epochs:
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "scheduler": scheduler.state_dict(), "epoch": epoch},
                           os.path.join(args.out, "checkpoint.pt"))


if __name__ == "__main__":
    main()
