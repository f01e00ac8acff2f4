"""U-Net downscaling of ERA5-like fields (t2m, u10, v10 -> t2m at 2x resolution).

Run with:  horovodrun -np 8 -H node1:4,node2:4 python 01_unet_climate.py --data /scratch/era5/npz
"""
import argparse
import glob
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

CFG = {
    "base_lr": 2e-4,
    "batch_size": 8,
    "epochs": 40,
    "channels": [32, 64, 128, 256],
    "num_workers": 4,
    "ckpt_dir": "checkpoints/unet",
}


class ClimateFields(Dataset):
    """One .npz per day holding 'x' (C,H,W) and 'y' (1,2H,2W), already normalised."""

    def __init__(self, root, split):
        self.files = sorted(glob.glob(os.path.join(root, split, "*.npz")))

    def __len__(self):
        return len(self.files)

    def __getitem__(self, i):
        d = np.load(self.files[i])
        return torch.from_numpy(d["x"]).float(), torch.from_numpy(d["y"]).float()


def block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.GELU(),
        nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.GELU(),
    )


class UNet(nn.Module):
    def __init__(self, cin=3, cout=1, ch=(32, 64, 128, 256)):
        super().__init__()
        self.downs = nn.ModuleList()
        c = cin
        for k in ch:
            self.downs.append(block(c, k))
            c = k
        self.ups = nn.ModuleList()
        self.upconvs = nn.ModuleList()
        for k in reversed(ch[:-1]):
            self.upconvs.append(nn.ConvTranspose2d(c, k, 2, stride=2))
            self.ups.append(block(2 * k, k))
            c = k
        self.head = nn.Sequential(nn.Upsample(scale_factor=2, mode="bilinear"), nn.Conv2d(c, cout, 1))

    def forward(self, x):
        skips = []
        for i, d in enumerate(self.downs):
            x = d(x)
            if i < len(self.downs) - 1:
                skips.append(x)
                x = F.max_pool2d(x, 2)
        for up, blk in zip(self.upconvs, self.ups):
            x = up(x)
            x = blk(torch.cat([x, skips.pop()], dim=1))
        return self.head(x)


def mean_over_ranks(value, name):
    return hvd.allreduce(torch.tensor(value), name=name).item()


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--data", required=True)
    p.add_argument("--epochs", type=int, default=CFG["epochs"])
    args = p.parse_args()

    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda", hvd.local_rank())
    torch.manual_seed(1234)

    train_ds = ClimateFields(args.data, "train")
    val_ds = ClimateFields(args.data, "val")
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=CFG["batch_size"], sampler=train_sampler,
                              num_workers=CFG["num_workers"], pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=CFG["batch_size"], sampler=val_sampler,
                            num_workers=CFG["num_workers"])

    model = UNet(ch=CFG["channels"]).to(device)
    lr = CFG["base_lr"] * hvd.size()
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)
    scaler = torch.cuda.amp.GradScaler()

    if hvd.rank() == 0:
        os.makedirs(CFG["ckpt_dir"], exist_ok=True)

    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        running, nb = 0.0, 0
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            optimizer.zero_grad()
            with torch.cuda.amp.autocast():
                loss = F.l1_loss(model(x), y)
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            running += loss.item()
            nb += 1
        scheduler.step()

        model.eval()
        mae, rmse, n = 0.0, 0.0, 0
        with torch.no_grad():
            for x, y in val_loader:
                x, y = x.to(device), y.to(device)
                pred = model(x)
                mae += (pred - y).abs().mean().item() * x.size(0)
                rmse += ((pred - y) ** 2).mean().item() * x.size(0)
                n += x.size(0)
        train_loss = mean_over_ranks(running / max(nb, 1), "train_loss")
        val_mae = mean_over_ranks(mae / n, "val_mae")
        val_rmse = mean_over_ranks(rmse / n, "val_mse") ** 0.5

        if hvd.rank() == 0:
            print(f"epoch {epoch:3d} train_l1 {train_loss:.4f} val_mae {val_mae:.4f} "
                  f"val_rmse {val_rmse:.4f} ({time.time() - t0:.0f}s)", flush=True)
            torch.save({"epoch": epoch, "model": model.state_dict(),
                        "optimizer": optimizer.state_dict()},
                       os.path.join(CFG["ckpt_dir"], f"unet_{epoch:03d}.pt"))


if __name__ == "__main__":
    main()
