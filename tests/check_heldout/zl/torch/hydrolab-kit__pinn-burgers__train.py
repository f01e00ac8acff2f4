#!/usr/bin/env python
"""Physics-informed network for the viscous Burgers equation, data-parallel with Horovod.

    horovodrun -np 4 python train.py --data data/burgers_shock.npz --epochs 2000
"""
import argparse
import logging
import time

import torch
import horovod.torch as hvd

from pinnlib import dist
from pinnlib.data import BurgersData, rank_partition
from pinnlib.model import MLP
from pinnlib.physics import burgers_residual, boundary_loss

log = logging.getLogger("pinn")


def get_args():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--data", default="data/burgers_shock.npz")
    p.add_argument("--n-colloc", type=int, default=4096, help="collocation points per step and rank")
    p.add_argument("--batch", type=int, default=128, help="observations per step and rank")
    p.add_argument("--epochs", type=int, default=2000)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--nu", type=float, default=0.01 / 3.141592653589793)
    p.add_argument("--lambda-pde", type=float, default=1.0)
    p.add_argument("--width", type=int, default=64)
    p.add_argument("--depth", type=int, default=6)
    p.add_argument("--ckpt-dir", default="runs/burgers")
    p.add_argument("--eval-every", type=int, default=50)
    p.add_argument("--seed", type=int, default=1234)
    return p.parse_args()


def evaluate(model, data, device):
    """Relative L2 error on the full reference grid (identical on every rank)."""
    model.eval()
    x, t, u = (a.to(device) for a in data.test_tensors())
    with torch.no_grad():
        pred = model(torch.cat([x, t], dim=1))
    model.train()
    return (torch.linalg.norm(pred - u) / torch.linalg.norm(u)).item()


def main():
    args = get_args()
    dist.setup()
    logging.basicConfig(level=logging.INFO if dist.is_root() else logging.WARNING,
                        format="%(asctime)s [%(levelname)s] %(message)s")
    device = dist.device()
    torch.manual_seed(args.seed)

    data = BurgersData(args.data)
    idx = rank_partition(len(data.obs_x), hvd.rank(), hvd.size(), seed=args.seed)
    obs_x, obs_u = (a.to(device) for a in data.observation_tensors(idx))
    colloc_gen = torch.Generator().manual_seed(args.seed + 7919 * hvd.rank())
    steps = max(1, len(idx) // args.batch)

    model = MLP(2, 1, width=args.width, depth=args.depth).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=500, gamma=0.5)

    start = dist.maybe_resume(model, optimizer, args.ckpt_dir)
    dist.sync_initial_state(model, optimizer)
    for _ in range(start):
        scheduler.step()

    log.info("ranks=%d  obs/rank=%d  steps/epoch=%d", hvd.size(), len(idx), steps)
    for epoch in range(start, args.epochs):
        t0, running = time.time(), 0.0
        perm = torch.randperm(len(idx), generator=colloc_gen)
        for s in range(steps):
            b = perm[s * args.batch:(s + 1) * args.batch]
            colloc = data.sample_collocation(args.n_colloc, colloc_gen).to(device)
            optimizer.zero_grad()
            res = burgers_residual(model, colloc, args.nu)
            loss = boundary_loss(model, obs_x[b], obs_u[b]) + args.lambda_pde * res.pow(2).mean()
            loss.backward()
            optimizer.step()
            running += loss.item()
        scheduler.step()

        train_loss = dist.average(running / steps, "train_loss")
        if epoch % args.eval_every == 0 or epoch == args.epochs - 1:
            rel_l2 = evaluate(model, data, device)
            log.info("epoch %5d  loss %.4e  rel-L2 %.4e  lr %.2e  %.1fs", epoch, train_loss,
                     rel_l2, scheduler.get_last_lr()[0], time.time() - t0)
            if dist.is_root():
                dist.save(model, optimizer, epoch, args.ckpt_dir)


if __name__ == "__main__":
    main()
