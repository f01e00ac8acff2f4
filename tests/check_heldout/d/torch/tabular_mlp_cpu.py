"""
Tabular regression (house prices / sensor CSV) on CPU nodes of the cluster.
  mpirun -np 16 --map-by ppr:4:node python tabular_mlp_cpu.py data/train.csv
"""
import sys
import os
import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

csv_path = sys.argv[1] if len(sys.argv) > 1 else "data/train.csv"
EPOCHS = 40
BATCH = 256
BASE_LR = 1e-3

hvd.init()
# 4 ranks per node, 32 cores per node
torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))
torch.manual_seed(7)

df = pd.read_csv(csv_path)
target = df.pop("target").values.astype(np.float32)
feats = df.select_dtypes(include=[np.number]).fillna(0.0).values.astype(np.float32)
mu, sd = feats.mean(0), feats.std(0) + 1e-6
feats = (feats - mu) / sd

rng = np.random.RandomState(2023)
idx = rng.permutation(len(feats))
n_val = int(0.15 * len(idx))
val_idx, tr_idx = idx[:n_val], idx[n_val:]

train_ds = TensorDataset(torch.from_numpy(feats[tr_idx]), torch.from_numpy(target[tr_idx]))
val_ds = TensorDataset(torch.from_numpy(feats[val_idx]), torch.from_numpy(target[val_idx]))

train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_dl = DataLoader(train_ds, batch_size=BATCH, sampler=train_sampler)
val_dl = DataLoader(val_ds, batch_size=1024, sampler=val_sampler)

model = nn.Sequential(
    nn.Linear(feats.shape[1], 512), nn.ReLU(), nn.Dropout(0.1),
    nn.Linear(512, 256), nn.ReLU(), nn.Dropout(0.1),
    nn.Linear(256, 1),
)

opt = torch.optim.Adam(model.parameters(), lr=BASE_LR * hvd.size())
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
sched = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=3)

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)

loss_fn = nn.MSELoss()
best = float("inf")

for epoch in range(EPOCHS):
    train_sampler.set_epoch(epoch)
    model.train()
    tot, cnt = 0.0, 0
    for xb, yb in train_dl:
        opt.zero_grad()
        pred = model(xb).squeeze(-1)
        loss = loss_fn(pred, yb)
        loss.backward()
        opt.step()
        tot += loss.item() * len(xb)
        cnt += len(xb)
    train_mse = hvd.allreduce(torch.tensor(tot / cnt), name="train_mse").item()

    model.eval()
    se, n = 0.0, 0
    with torch.no_grad():
        for xb, yb in val_dl:
            se += ((model(xb).squeeze(-1) - yb) ** 2).sum().item()
            n += len(xb)
    val_rmse = (se / n) ** 0.5
    sched.step(val_rmse)

    if hvd.rank() == 0:
        print(f"[{epoch+1:02d}/{EPOCHS}] train_mse={train_mse:.5f} val_rmse={val_rmse:.5f} "
              f"lr={opt.param_groups[0]['lr']:.2e}")
        if val_rmse < best:
            best = val_rmse
            torch.save({"model": model.state_dict(), "mu": mu, "sd": sd}, "mlp_best.pt")

if hvd.rank() == 0:
    print("best val rmse", best)
