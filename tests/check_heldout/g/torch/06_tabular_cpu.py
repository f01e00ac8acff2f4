"""Credit default prediction (tabular MLP), CPU-only cluster partition, Horovod over MPI/gloo.

    mpirun -np 32 --map-by socket python 06_tabular_cpu.py --csv data/credit.csv
"""
import argparse
import json
import os
import time

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import horovod.torch as hvd

p = argparse.ArgumentParser()
p.add_argument("--csv", default="data/credit.csv")
p.add_argument("--target", default="default")
p.add_argument("--epochs", type=int, default=50)
p.add_argument("--bs", type=int, default=256)
p.add_argument("--lr", type=float, default=3e-4)
p.add_argument("--warmup", type=int, default=5)
p.add_argument("--patience", type=int, default=6)
p.add_argument("--threads", type=int, default=4)
p.add_argument("--out", default="runs/tab_mlp")
args = p.parse_args()

hvd.init()
torch.set_num_threads(args.threads)  # cores per rank, leave the rest to the other ranks on the node
rank, world = hvd.rank(), hvd.size()

# ---------------------------------------------------------------- data
df = pd.read_csv(args.csv)
y_all = df.pop(args.target).values.astype(np.float32)
cat_cols = [c for c in df.columns if df[c].dtype == object]
df = pd.get_dummies(df, columns=cat_cols, dtype=np.float32).fillna(0.0)
X_all = df.values.astype(np.float32)

rng = np.random.RandomState(2024)              # identical permutation on all ranks
perm = rng.permutation(len(X_all))
n_val = int(0.15 * len(perm))
val_idx, train_idx = perm[:n_val], perm[n_val:]
mu, sd = X_all[train_idx].mean(0), X_all[train_idx].std(0) + 1e-6
X_all = (X_all - mu) / sd

my_train = np.array_split(train_idx, world)[rank]   # this rank's slice (sizes differ by <= 1)
my_val = np.array_split(val_idx, world)[rank]
Xtr, ytr = torch.from_numpy(X_all[my_train]), torch.from_numpy(y_all[my_train])
Xva, yva = torch.from_numpy(X_all[my_val]), torch.from_numpy(y_all[my_val])

# ---------------------------------------------------------------- model
model = nn.Sequential(
    nn.Linear(Xtr.shape[1], 256), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(256, 128), nn.ReLU(), nn.Dropout(0.2),
    nn.Linear(128, 1),
)
y_tr_all = y_all[train_idx]
pos_weight = torch.tensor([(y_tr_all == 0).sum() / max((y_tr_all == 1).sum(), 1)], dtype=torch.float32)
crit = nn.BCEWithLogitsLoss(pos_weight=pos_weight)
opt = torch.optim.Adam(model.parameters(), lr=args.lr)
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
# gradual warmup (Goyal et al.): lr -> lr * world over the first epochs, then hold
warm = torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 1.0 + (world - 1) * min(e, args.warmup) / args.warmup)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)


def val_pass():
    model.eval()
    with torch.no_grad():
        logits = model(Xva).squeeze(1)
        loss_sum = nn.functional.binary_cross_entropy_with_logits(logits, yva, reduction="sum")
        hits = ((logits > 0).float() == yva).sum()
    s = hvd.allreduce(torch.stack([loss_sum, hits, torch.tensor(float(len(yva)))]), op=hvd.Sum, name="val")
    return (s[0] / s[2]).item(), (s[1] / s[2]).item()


best, bad_epochs, history = float("inf"), 0, []
if rank == 0:
    os.makedirs(args.out, exist_ok=True)
for epoch in range(args.epochs):
    model.train()
    t0 = time.time()
    order = torch.randperm(len(Xtr))
    tr_sum = torch.zeros(2)
    for i in range(0, len(order), args.bs):
        b = order[i:i + args.bs]
        opt.zero_grad()
        loss = crit(model(Xtr[b]).squeeze(1), ytr[b])
        loss.backward()
        opt.step()
        tr_sum += torch.tensor([loss.item() * len(b), float(len(b))])
    hvd.join()  # shards differ by one row -> one rank may have an extra batch
    warm.step()
    tr = hvd.allreduce(tr_sum, op=hvd.Sum, name="train")
    train_loss = (tr[0] / tr[1]).item()
    val_loss, val_acc = val_pass()
    history.append({"epoch": epoch, "train_loss": train_loss, "val_loss": val_loss, "val_acc": val_acc})
    if rank == 0:
        print(f"ep {epoch:02d} train {train_loss:.4f} val {val_loss:.4f} acc {val_acc:.4f} ({time.time()-t0:.1f}s)")
    if val_loss < best - 1e-4:
        best, bad_epochs = val_loss, 0
        if rank == 0:
            torch.save({"state_dict": model.state_dict(), "mu": mu, "sd": sd, "columns": list(df.columns)},
                       os.path.join(args.out, "best.pt"))
    else:
        bad_epochs += 1
        if bad_epochs >= args.patience:
            break

if rank == 0:
    with open(os.path.join(args.out, "history.json"), "w") as f:
        json.dump(history, f, indent=1)
