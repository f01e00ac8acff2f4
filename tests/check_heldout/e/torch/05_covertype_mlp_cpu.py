# Forest Covertype (581k rows, 54 features, 7 classes) MLP on CPU nodes with horovod.torch.
# Our partition has no GPUs: 2 nodes x 4 ranks, each rank gets cores/local_size threads.
#   mpirun -np 8 --map-by ppr:4:node:pe=8 python 05_covertype_mlp_cpu.py covtype.csv
import os
import sys
import time

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
import horovod.torch as hvd
from sklearn.model_selection import train_test_split

CSV = sys.argv[1] if len(sys.argv) > 1 else "covtype.csv"
BATCH = 512
EPOCHS = 60
BASE_LR = 1e-3
PATIENCE = 6
OUT = "covtype_mlp.pt"

hvd.init()
torch.set_num_threads(max(1, (os.cpu_count() or 1) // hvd.local_size()))
torch.manual_seed(0)

df = pd.read_csv(CSV)
y_all = df.pop("Cover_Type").values - 1
X_all = df.values.astype(np.float32)
# fixed random_state: every rank gets the same split
X_tr, X_va, y_tr, y_va = train_test_split(X_all, y_all, test_size=0.1, random_state=7, stratify=y_all)
mu, sd = X_tr.mean(0), X_tr.std(0) + 1e-6
X_tr, X_va = (X_tr - mu) / sd, (X_va - mu) / sd

# this rank's rows: every size-th row starting at rank
X_mine = torch.from_numpy(X_tr[hvd.rank()::hvd.size()])
y_mine = torch.from_numpy(y_tr[hvd.rank()::hvd.size()]).long()
X_va_t, y_va_t = torch.from_numpy(X_va), torch.from_numpy(y_va).long()
if hvd.rank() == 0:
    print(f"{hvd.size()} ranks, {len(X_tr)} train rows ({len(X_mine)} on rank 0), {len(X_va)} val rows")

model = nn.Sequential(
    nn.Linear(54, 512), nn.BatchNorm1d(512), nn.ReLU(), nn.Dropout(0.1),
    nn.Linear(512, 256), nn.BatchNorm1d(256), nn.ReLU(), nn.Dropout(0.1),
    nn.Linear(256, 7),
)
opt = torch.optim.Adam(model.parameters(), lr=BASE_LR * hvd.size())
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=20, gamma=0.3)

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                               compression=hvd.Compression.none)
crit = nn.CrossEntropyLoss()

best, bad_epochs = float("inf"), 0
for epoch in range(EPOCHS):
    t0 = time.time()
    model.train()
    g = torch.Generator().manual_seed(1000 * epoch + hvd.rank())
    perm = torch.randperm(len(X_mine), generator=g)
    loss_sum = torch.zeros(2, dtype=torch.float64)  # [sum of losses, rows]
    for s in range(0, len(perm), BATCH):
        idx = perm[s:s + BATCH]
        if len(idx) < 2:       # BatchNorm needs 2 rows
            continue
        opt.zero_grad()
        loss = crit(model(X_mine[idx]), y_mine[idx])
        loss.backward()
        opt.step()
        loss_sum += torch.tensor([loss.item() * len(idx), len(idx)], dtype=torch.float64)
    # shards differ by at most one row, so a rank may have one batch fewer:
    # join lets the others finish their last allreduce
    hvd.join()
    sched.step()

    loss_sum = hvd.allreduce(loss_sum, op=hvd.Sum, name="train_loss")
    train_loss = (loss_sum[0] / loss_sum[1]).item()

    # every rank scores the full validation set with the same weights
    model.eval()
    with torch.no_grad():
        logits = model(X_va_t)
        val_loss = crit(logits, y_va_t).item()
        val_acc = (logits.argmax(1) == y_va_t).float().mean().item()

    if hvd.rank() == 0:
        print(f"epoch {epoch:02d} train {train_loss:.4f} val {val_loss:.4f} "
              f"acc {val_acc:.4f} lr {sched.get_last_lr()[0]:.2e} {time.time() - t0:.1f}s", flush=True)

    if val_loss < best - 1e-4:
        best, bad_epochs = val_loss, 0
        if hvd.rank() == 0:
            torch.save({"model": model.state_dict(), "mu": mu, "sd": sd, "epoch": epoch}, OUT)
    else:
        bad_epochs += 1
        if bad_epochs >= PATIENCE:   # same val_loss on all ranks -> all stop together
            if hvd.rank() == 0:
                print("early stop")
            break
