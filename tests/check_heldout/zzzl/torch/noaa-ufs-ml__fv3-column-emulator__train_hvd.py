"""
Train the coarse-grained FV3 tendency emulator with Horovod.

Slurm (Hera):
    #SBATCH --nodes=2 --ntasks-per-node=4 --gres=gpu:4 --time=08:00:00
    srun python train_hvd.py --config cfg/c48_emu.yaml
"""
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
import horovod.torch as hvd

DEFAULTS = {
    "data_dir": "/scratch2/fv3_c48/coarse",
    "train_files": "train_*.npz",
    "valid_file": "valid.npz",
    "n_levels": 79,
    "in_vars": ["air_temperature", "specific_humidity", "eastward_wind", "northward_wind"],
    "hidden": 256,
    "n_layers": 4,
    "lr": 1e-3,
    "batch_size": 512,
    "epochs": 20,
    "rollout": 4,
    "out_dir": "out/c48_emu",
    "save_every": 1,
}


def load_cfg(path):
    cfg = dict(DEFAULTS)
    if path is not None:
        with open(path) as f:
            user = yaml.safe_load(f) or {}
        cfg.update(user)
    return cfg


parser = argparse.ArgumentParser()
parser.add_argument("--config", type=str, default=None)
parser.add_argument("--resume", type=str, default=None)
parser.add_argument("--seed", type=int, default=42)
args = parser.parse_args()
cfg = load_cfg(args.config)

hvd.init()
torch.manual_seed(args.seed)
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if use_cuda else "cpu")


def load_columns(files, in_vars):
    """Each file holds arrays (T, Z, ncol) per variable; returns (T, V*Z, ncol), time axis first."""
    states = []
    for fn in files:
        z = np.load(fn)
        x = np.concatenate([z[v] for v in in_vars], axis=1)
        states.append(x)
    return np.concatenate(states, axis=0)


class RolloutColumns(torch.utils.data.Dataset):
    def __init__(self, arr, rollout, mean, std):
        # arr: (T, F, ncol) -> samples (t, col)
        self.arr = arr
        self.rollout = rollout
        self.mean, self.std = mean, std
        self.T, self.F, self.ncol = arr.shape

    def __len__(self):
        return (self.T - self.rollout) * self.ncol

    def __getitem__(self, i):
        t, c = divmod(i, self.ncol)
        seq = self.arr[t:t + self.rollout + 1, :, c]
        seq = (seq - self.mean) / self.std
        return torch.from_numpy(seq.astype(np.float32))


class ColumnNet(nn.Module):
    def __init__(self, nf, hidden, n_layers):
        super().__init__()
        layers = [nn.Linear(nf, hidden), nn.SiLU()]
        for _ in range(n_layers - 1):
            layers += [nn.Linear(hidden, hidden), nn.SiLU()]
        layers.append(nn.Linear(hidden, nf))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return x + self.net(x)  # predicts the 3h increment


import glob
train_files = sorted(glob.glob(os.path.join(cfg["data_dir"], cfg["train_files"])))
train_arr = load_columns(train_files, cfg["in_vars"])
valid_arr = load_columns([os.path.join(cfg["data_dir"], cfg["valid_file"])], cfg["in_vars"])

# every rank computes the same statistics from the same files
mean = train_arr.mean(axis=(0, 2))[:, None].T[0].astype(np.float32)
std = (train_arr.std(axis=(0, 2)) + 1e-6).astype(np.float32)

train_ds = RolloutColumns(train_arr, cfg["rollout"], mean, std)
valid_ds = RolloutColumns(valid_arr, cfg["rollout"], mean, std)
train_sampler = torch.utils.data.distributed.DistributedSampler(
    train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True, seed=args.seed)
valid_sampler = torch.utils.data.distributed.DistributedSampler(
    valid_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = torch.utils.data.DataLoader(train_ds, batch_size=cfg["batch_size"], sampler=train_sampler,
                                           num_workers=2, drop_last=True)
valid_loader = torch.utils.data.DataLoader(valid_ds, batch_size=cfg["batch_size"], sampler=valid_sampler)

nf = train_arr.shape[1]
model = ColumnNet(nf, cfg["hidden"], cfg["n_layers"]).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"])
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg["epochs"])

start_epoch = 0
if args.resume:
    ck = torch.load(args.resume, map_location="cpu")
    model.load_state_dict(ck["model"])
    optimizer.load_state_dict(ck["optim"])
    start_epoch = ck["epoch"]

hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(), op=hvd.Average)


def multi_step_loss(model, seq):
    x = seq[:, 0]
    loss = 0.0
    for k in range(1, seq.shape[1]):
        x = model(x)
        loss = loss + F.mse_loss(x, seq[:, k])
    return loss / (seq.shape[1] - 1)


def metric_average(val, name):
    return hvd.allreduce(torch.tensor(val), name=name).item()


for epoch in range(start_epoch, cfg["epochs"]):
    model.train()
    train_sampler.set_epoch(epoch)
    tic = time.time()
    for step, seq in enumerate(train_loader):
        seq = seq.to(device)
        optimizer.zero_grad()
        loss = multi_step_loss(model, seq)
        loss.backward()
        optimizer.step()
        if step % 100 == 0 and hvd.rank() == 0:
            print(f"epoch {epoch} step {step} loss {loss.item():.5f}", flush=True)
    scheduler.step()

    model.eval()
    vloss, nb = 0.0, 0
    with torch.no_grad():
        for seq in valid_loader:
            vloss += multi_step_loss(model, seq.to(device)).item()
            nb += 1
    vloss = metric_average(vloss / max(nb, 1), "val_loss")
    if hvd.rank() == 0:
        print(f"epoch {epoch} valid rollout mse {vloss:.5f} ({time.time() - tic:.0f}s)", flush=True)
        if (epoch + 1) % cfg["save_every"] == 0:
            os.makedirs(cfg["out_dir"], exist_ok=True)
            torch.save({"model": model.state_dict(), "optim": optimizer.state_dict(), "epoch": epoch + 1},
                       os.path.join(cfg["out_dir"], f"ckpt_{epoch:03d}.pt"))
