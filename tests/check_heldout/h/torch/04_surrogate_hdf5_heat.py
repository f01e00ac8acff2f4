"""
CNN surrogate for a 2D heat/advection solver: predicts the field at t+dt from the field at t
and the (broadcast) material parameters.

Simulation output lives on the parallel file system as many HDF5 files
(/lustre/proj/heat_sims/run_XXXX.h5, datasets "x": (n, 3, 128, 128) and "y": (n, 1, 128, 128)).
Each Horovod worker reads its own subset of the files.

    srun -n 16 python 04_surrogate_hdf5_heat.py /lustre/proj/heat_sims
"""
import glob
import os
import sys
import time

import h5py
import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import TensorDataset, DataLoader
from torch.utils.tensorboard import SummaryWriter
import horovod.torch as hvd

config = {
    "data_root": sys.argv[1] if len(sys.argv) > 1 else "/lustre/proj/heat_sims",
    "val_fraction_files": 0.1,
    "batch_size": 32,
    "max_epochs": 200,
    "patience": 12,
    "optim": {"lr": 2e-4, "betas": (0.9, 0.99), "weight_decay": 1e-5},
    "width": 48,
    "out": "surrogate_out",
}


def read_files(paths):
    xs, ys = [], []
    for p in paths:
        with h5py.File(p, "r") as f:
            xs.append(f["x"][...].astype(np.float32))
            ys.append(f["y"][...].astype(np.float32))
    if not xs:
        raise RuntimeError("no files for this rank; use fewer ranks than files")
    return torch.from_numpy(np.concatenate(xs)), torch.from_numpy(np.concatenate(ys))


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.GELU(),
                                  nn.Conv2d(c, c, 3, padding=1))

    def forward(self, x):
        return x + self.body(x)


class Surrogate(nn.Module):
    def __init__(self, cin=3, cout=1, w=48, nblocks=6):
        super().__init__()
        self.lift = nn.Conv2d(cin, w, 1)
        self.blocks = nn.Sequential(*[Block(w) for _ in range(nblocks)])
        self.proj = nn.Conv2d(w, cout, 1)

    def forward(self, x):
        # residual on the temperature channel
        return x[:, :1] + self.proj(self.blocks(self.lift(x)))


class Trainer:
    def __init__(self, cfg):
        self.cfg = cfg
        self.is_root = hvd.rank() == 0
        self.device = torch.device("cuda")

        files = sorted(glob.glob(os.path.join(cfg["data_root"], "run_*.h5")))
        n_val = max(hvd.size(), int(len(files) * cfg["val_fraction_files"]))
        val_files, train_files = files[:n_val], files[n_val:]
        # round-robin assignment of files to ranks
        x, y = read_files(train_files[hvd.rank()::hvd.size()])
        vx, vy = read_files(val_files[hvd.rank()::hvd.size()])
        self.train_loader = DataLoader(TensorDataset(x, y), batch_size=cfg["batch_size"],
                                       shuffle=True, drop_last=True, pin_memory=True)
        self.val_loader = DataLoader(TensorDataset(vx, vy), batch_size=2 * cfg["batch_size"])
        self.steps_per_epoch = int(hvd.allreduce(torch.tensor(len(self.train_loader)),
                                                 op=hvd.Min, name="min_steps").item())

        self.model = Surrogate(w=cfg["width"]).to(self.device)
        opt_kw = dict(cfg["optim"])
        opt_kw["lr"] = opt_kw["lr"] * hvd.size()
        base_opt = torch.optim.AdamW(self.model.parameters(), **opt_kw)
        self.opt = hvd.DistributedOptimizer(base_opt,
                                            named_parameters=self.model.named_parameters(),
                                            compression=hvd.Compression.fp16)
        self.sched = torch.optim.lr_scheduler.ReduceLROnPlateau(self.opt, factor=0.5, patience=4)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.opt, root_rank=0)

        self.loss_fn = nn.MSELoss()
        self.tb = SummaryWriter(os.path.join(cfg["out"], "tb")) if self.is_root else None
        if self.is_root:
            print(f"[surrogate] {len(train_files)} train files, {len(val_files)} val files, "
                  f"{hvd.size()} ranks, {len(x)} local samples")

    def _global_mean(self, total, count, name):
        t = hvd.allreduce(torch.tensor([total, float(count)], dtype=torch.float64),
                          op=hvd.Sum, name=name)
        return (t[0] / t[1]).item()

    def train_epoch(self):
        self.model.train()
        tot, n = 0.0, 0
        for it, (xb, yb) in enumerate(self.train_loader):
            if it == self.steps_per_epoch:
                break  # files differ in size: every rank stops at the same step
            xb = xb.to(self.device, non_blocking=True)
            yb = yb.to(self.device, non_blocking=True)
            self.opt.zero_grad()
            loss = self.loss_fn(self.model(xb), yb)
            loss.backward()
            self.opt.step()
            tot += loss.item() * xb.size(0)
            n += xb.size(0)
        return self._global_mean(tot, n, "train_mse")

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        sq, cnt = 0.0, 0
        for xb, yb in self.val_loader:
            xb, yb = xb.to(self.device), yb.to(self.device)
            sq += torch.sum((self.model(xb) - yb) ** 2).item()
            cnt += yb.numel()
        return self._global_mean(sq, cnt, "val_mse")

    def save(self, tag, epoch, val):
        if not self.is_root:
            return
        torch.save({"epoch": epoch, "val_mse": val, "model": self.model.state_dict(),
                    "config": self.cfg}, os.path.join(self.cfg["out"], f"{tag}.pt"))

    def fit(self):
        if self.is_root:
            os.makedirs(self.cfg["out"], exist_ok=True)
        best, bad = float("inf"), 0
        for epoch in range(self.cfg["max_epochs"]):
            t0 = time.time()
            tr = self.train_epoch()
            va = self.validate()
            self.sched.step(va)  # va is identical on all ranks -> LR stays in sync
            if self.is_root:
                self.tb.add_scalar("mse/train", tr, epoch)
                self.tb.add_scalar("mse/val", va, epoch)
                print(f"epoch {epoch:3d}  train {tr:.3e}  val {va:.3e}  {time.time() - t0:.1f}s")
            if va < best:
                best, bad = va, 0
                self.save("best", epoch, va)
            else:
                bad += 1
                if bad >= self.cfg["patience"]:
                    if self.is_root:
                        print(f"early stop at epoch {epoch}, best val {best:.3e}")
                    break
        self.save("last", epoch, va)


if __name__ == "__main__":
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(0)
    trainer = Trainer(config)
    trainer.fit()
