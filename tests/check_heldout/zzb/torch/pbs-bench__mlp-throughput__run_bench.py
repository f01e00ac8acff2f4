#!/usr/bin/env python3
# MLP throughput benchmark for the PBS Pro cluster.
#
#   qsub -l select=4:ncpus=36:mpiprocs=2:ngpus=2 run_bench.pbs
#   (run_bench.pbs does: mpirun -np $NP --hostfile $PBS_NODEFILE python run_bench.py --npz $DATA)
#
# Prints samples/s per epoch and writes one timing file per rank to $OUTDIR/rank_<r>.tsv
import argparse
import os
import socket
import sys
import time

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd

ap = argparse.ArgumentParser()
ap.add_argument("--npz", default=None, help="npz with x_train/y_train/x_test/y_test; synthetic if unset")
ap.add_argument("--features", type=int, default=512)
ap.add_argument("--classes", type=int, default=20)
ap.add_argument("--hidden", type=int, nargs="+", default=[2048, 2048, 1024])
ap.add_argument("--batch", type=int, default=256, help="per-rank batch size")
ap.add_argument("--lr", type=float, default=1e-3)
ap.add_argument("--epochs", type=int, default=5)
ap.add_argument("--seed", type=int, default=7)
ap.add_argument("--threads", type=int, default=int(os.environ.get("NCPUS", "4")))
ap.add_argument("--outdir", default=os.environ.get("OUTDIR", "bench_out"))
args = ap.parse_args()

hvd.init()
rank, size, lrank = hvd.rank(), hvd.size(), hvd.local_rank()
torch.set_num_threads(max(1, args.threads // hvd.local_size()))
if torch.cuda.is_available():
    torch.cuda.set_device(lrank)
    dev = torch.device("cuda")
else:
    dev = torch.device("cpu")

if rank == 0:
    nodes = os.environ.get("PBS_NODEFILE")
    nodes = len(set(open(nodes).read().split())) if nodes and os.path.exists(nodes) else 1
    print(f"# {size} ranks on {nodes} node(s), job {os.environ.get('PBS_JOBID', 'interactive')}")
    sys.stdout.flush()

# ---------------------------------------------------------------- data
if args.npz:
    d = np.load(args.npz)
    x_train, y_train, x_test, y_test = d["x_train"], d["y_train"], d["x_test"], d["y_test"]
else:
    rng = np.random.default_rng(args.seed)
    w = rng.normal(size=(args.features, args.classes))
    x_train = rng.normal(size=(65536, args.features)).astype(np.float32)
    x_test = rng.normal(size=(8192, args.features)).astype(np.float32)
    y_train = (x_train @ w).argmax(1)
    y_test = (x_test @ w).argmax(1)

# every rank takes every size-th sample
x_train, y_train = x_train[rank::size], y_train[rank::size]
x_test, y_test = x_test[rank::size], y_test[rank::size]
xt = torch.from_numpy(np.ascontiguousarray(x_train)).float()
yt = torch.from_numpy(np.ascontiguousarray(y_train)).long()
n_local = len(xt)
steps = n_local // args.batch

# ---------------------------------------------------------------- model
layers, fin = [], args.features
for h in args.hidden:
    layers += [nn.Linear(fin, h), nn.ReLU()]
    fin = h
layers.append(nn.Linear(fin, args.classes))
model = nn.Sequential(*layers).to(dev)

opt = torch.optim.Adam(model.parameters(), lr=args.lr * size)
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)
loss_fn = nn.CrossEntropyLoss()

os.makedirs(args.outdir, exist_ok=True)
tlog = open(os.path.join(args.outdir, f"rank_{rank}.tsv"), "w")
tlog.write("epoch\tstep_time_mean\tstep_time_max\thost\n")

g = torch.Generator().manual_seed(args.seed + rank)
for epoch in range(args.epochs):
    model.train()
    perm = torch.randperm(n_local, generator=g)
    times = []
    t_epoch = time.time()
    for s in range(steps):
        idx = perm[s * args.batch:(s + 1) * args.batch]
        xb, yb = xt[idx].to(dev), yt[idx].to(dev)
        t0 = time.time()
        opt.zero_grad()
        loss = loss_fn(model(xb), yb)
        loss.backward()
        opt.step()
        if dev.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.time() - t0)
    elapsed = time.time() - t_epoch
    tlog.write(f"{epoch}\t{np.mean(times):.5f}\t{np.max(times):.5f}\t{socket.gethostname()}\n")
    tlog.flush()

    rate = hvd.allreduce(torch.tensor(steps * args.batch / elapsed), op=hvd.Sum, name="rate").item()

    model.eval()
    with torch.no_grad():
        logits = model(torch.from_numpy(np.ascontiguousarray(x_test)).float().to(dev))
        acc = (logits.argmax(1).cpu().numpy() == y_test).mean()
    if rank == 0:
        print(f"epoch {epoch:3d}  loss {loss.item():.4f}  test_acc {acc:.4f}  "
              f"{rate:,.0f} samples/s ({rate / size:,.0f} per rank)")
        sys.stdout.flush()

tlog.close()
if rank == 0:
    torch.save(model.state_dict(), os.path.join(args.outdir, "mlp_final.pt"))
