"""ICF implosion surrogate: scalar + spectral outputs from 5 design parameters (JAG-like ensemble).

Inputs are the memory-mapped ensemble arrays written by the post-processing step:
    params.npy  (N, 5) float32   design parameters in [0, 1]
    scalars.npy (N, 15) float32  yield, bang time, ... (standardised)
Run on Lassen:  lrun -N 4 -T 4 python train.py --data /p/gpfs1/icfsurr/jag10k
"""
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
from mpi4py import MPI
import horovod.torch as hvd


def build_model(n_in=5, n_out=15, width=256, depth=6):
    layers, d = [], n_in
    for _ in range(depth):
        layers += [nn.Linear(d, width), nn.SiLU()]
        d = width
    layers.append(nn.Linear(d, n_out))
    return nn.Sequential(*layers)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--epochs", type=int, default=200)
    ap.add_argument("--batch", type=int, default=128)
    ap.add_argument("--lr", type=float, default=5e-3)
    ap.add_argument("--val-frac", type=float, default=0.05)
    ap.add_argument("--ckpt-dir", default="ckpt")
    ap.add_argument("--ckpt-every", type=int, default=2000, help="optimizer steps between checkpoints")
    ap.add_argument("--bf16", action="store_true")
    args = ap.parse_args()

    comm = MPI.COMM_WORLD
    hvd.init(comm)
    rank, size = hvd.rank(), hvd.size()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        dev = torch.device("cuda")
    else:
        dev = torch.device("cpu")

    X = np.load(os.path.join(args.data, "params.npy"), mmap_mode="r")
    Y = np.load(os.path.join(args.data, "scalars.npy"), mmap_mode="r")
    n = X.shape[0]
    order = np.random.default_rng(20190301).permutation(n)     # identical on all ranks
    n_val = int(n * args.val_frac)
    val_idx, train_idx = np.sort(order[:n_val]), order[n_val:]
    per_rank = len(train_idx) // size
    my_idx = np.sort(train_idx[rank:per_rank * size:size])        # strided, equal length on every rank
    Xtr = torch.from_numpy(np.asarray(X[my_idx], dtype=np.float32))
    Ytr = torch.from_numpy(np.asarray(Y[my_idx], dtype=np.float32))
    steps_per_epoch = per_rank // args.batch

    torch.manual_seed(0)
    model = build_model(n_in=X.shape[1], n_out=Y.shape[1]).to(dev)
    # gradients are SUMMED over ranks, so the single-process lr already acts on the global batch
    opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, nesterov=True)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), op=hvd.Sum)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    loss_fn = nn.MSELoss()
    g = torch.Generator().manual_seed(1234 + rank)
    step = 0
    if rank == 0:
        os.makedirs(args.ckpt_dir, exist_ok=True)
        Xval = torch.from_numpy(np.asarray(X[val_idx], dtype=np.float32)).to(dev)
        Yval = torch.from_numpy(np.asarray(Y[val_idx], dtype=np.float32)).to(dev)
        print(f"{size} ranks, {per_rank} samples/rank, {steps_per_epoch} steps/epoch", flush=True)

    for epoch in range(args.epochs):
        t0 = time.time()
        model.train()
        perm = torch.randperm(per_rank, generator=g)
        for s in range(steps_per_epoch):
            b = perm[s * args.batch:(s + 1) * args.batch]
            xb, yb = Xtr[b].to(dev), Ytr[b].to(dev)
            opt.zero_grad()
            with torch.autocast(device_type=dev.type, dtype=torch.bfloat16, enabled=args.bf16):
                loss = loss_fn(model(xb), yb)
            loss.backward()
            opt.step()
            step += 1
            if rank == 0 and step % args.ckpt_every == 0:
                torch.save({"step": step, "model": model.state_dict(), "opt": opt.state_dict()},
                           os.path.join(args.ckpt_dir, f"icf_step{step:07d}.pt"))

        # validation: rank 0 alone, on the whole held-out set (small), the other ranks go on
        if rank == 0:
            model.eval()
            with torch.no_grad():
                val = loss_fn(model(Xval), Yval).item()
            print(f"epoch {epoch:4d} val_mse {val:.5f} train_mse(r0) {loss.item():.5f} "
                  f"{time.time() - t0:.1f}s", flush=True)

    comm.Barrier()
    if rank == 0:
        torch.save(model.state_dict(), os.path.join(args.ckpt_dir, "icf_final.pt"))


if __name__ == "__main__":
    main()
