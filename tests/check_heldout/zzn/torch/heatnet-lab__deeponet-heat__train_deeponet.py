"""DeepONet for the 1-D heat equation: initial condition u0(x) -> u(x, t).

Branch net encodes u0 sampled at m sensors, trunk net encodes (x, t).  The loss is the data misfit on
reference solutions plus the residual u_t - k u_xx evaluated through autograd on the trunk inputs.

    horovodrun -np 4 python train_deeponet.py --data data/heat1d.npz --accum 2
"""
import argparse
import logging
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

log = logging.getLogger("deeponet")


def get_args(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", default="data/heat1d.npz")
    ap.add_argument("--kappa", type=float, default=0.05)
    ap.add_argument("--p", type=int, default=128, help="latent width of branch/trunk")
    ap.add_argument("--bs", type=int, default=64)
    ap.add_argument("--accum", type=int, default=1, help="gradient accumulation steps")
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--phys-weight", type=float, default=0.1)
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--resume", action="store_true")
    return ap.parse_args(argv)


def mlp(sizes, act=nn.Tanh):
    layers = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), act()]
    return nn.Sequential(*layers[:-1])


class DeepONet(nn.Module):
    def __init__(self, m, p):
        super().__init__()
        self.branch = mlp([m, 256, 256, p])
        self.trunk = mlp([2, 256, 256, p])
        self.bias = nn.Parameter(torch.zeros(1))

    def forward(self, u0, xt):
        # u0: (B, m), xt: (B, Q, 2) -> (B, Q)
        return torch.einsum("bp,bqp->bq", self.branch(u0), self.trunk(xt)) + self.bias


def heat_residual(model, u0, xt, kappa):
    xt = xt.detach().requires_grad_(True)
    u = model(u0, xt)
    g = torch.autograd.grad(u.sum(), xt, create_graph=True)[0]
    u_x, u_t = g[..., 0], g[..., 1]
    u_xx = torch.autograd.grad(u_x.sum(), xt, create_graph=True)[0][..., 0]
    return u_t - kappa * u_xx


def load(path):
    d = np.load(path)
    t = lambda k: torch.from_numpy(d[k].astype(np.float32))  # noqa: E731
    # u0 (N, m), xt (N, Q, 2), u (N, Q); the last 10% are held out
    u0, xt, u = t("u0"), t("xt"), t("u")
    n_val = len(u0) // 10
    return TensorDataset(u0[:-n_val], xt[:-n_val], u[:-n_val]), TensorDataset(u0[-n_val:], xt[-n_val:], u[-n_val:])


def evaluate(model, loader, device):
    model.eval()
    num = den = 0.0
    with torch.no_grad():
        for u0, xt, u in loader:
            pred = model(u0.to(device), xt.to(device))
            num += (pred - u.to(device)).pow(2).sum().item()
            den += u.pow(2).sum().item()
    return (num / den) ** 0.5


def main(argv=None):
    args = get_args(argv)
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING, stream=sys.stdout,
                        format=f"[%(asctime)s r{hvd.rank()}] %(message)s")
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")

    train_set, val_set = load(args.data)
    sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    train_loader = DataLoader(train_set, batch_size=args.bs, sampler=sampler)
    val_loader = DataLoader(val_set, batch_size=256)   # small: every worker checks all of it

    model = DeepONet(train_set.tensors[0].shape[1], args.p).to(device)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=10)

    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                   backward_passes_per_step=args.accum)

    start_epoch = 0
    ckpt_file = os.path.join(args.ckpt_dir, "deeponet_heat.pt")
    if args.resume and hvd.rank() == 0 and os.path.exists(ckpt_file):
        state = torch.load(ckpt_file, map_location="cpu")
        model.load_state_dict(state["model"])
        opt.load_state_dict(state["opt"])
        start_epoch = state["epoch"] + 1
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    for epoch in range(start_epoch, args.epochs):
        model.train()
        sampler.set_epoch(epoch)
        opt.zero_grad()
        for i, (u0, xt, u) in enumerate(train_loader):
            u0, xt, u = u0.to(device), xt.to(device), u.to(device)
            loss = nn.functional.mse_loss(model(u0, xt), u)
            loss = loss + args.phys_weight * heat_residual(model, u0, xt, args.kappa).pow(2).mean()
            (loss / args.accum).backward()
            if (i + 1) % args.accum == 0 or i + 1 == len(train_loader):
                opt.step()
                opt.zero_grad()
        rel = evaluate(model, val_loader, device)
        sched.step(rel)
        log.info("epoch %d  val rel-L2 %.4e  lr %.2e", epoch, rel, opt.param_groups[0]["lr"])
        if hvd.rank() == 0:
            os.makedirs(args.ckpt_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch}, ckpt_file)


if __name__ == "__main__":
    main()
