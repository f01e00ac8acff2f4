#!/usr/bin/env python
# CosmoFlow-mini training driver (ALCF SciML group).
# Launch on Polaris:  mpiexec -n 8 --ppn 4 python train.py --data-file $DATA/cosmo_64.h5
import argparse
import dataclasses
import os
import time

import horovod.torch as hvd
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from cosmoflow import comm
from cosmoflow.config import TrainConfig
from cosmoflow.data import CubeDataset, n_samples, rank_indices
from cosmoflow.model import CosmoFlow


def parse_config():
    cfg = TrainConfig()
    p = argparse.ArgumentParser()
    for f in dataclasses.fields(cfg):
        if f.type in (int, float, str):
            p.add_argument("--" + f.name.replace("_", "-"), type=f.type, default=getattr(cfg, f.name))
    p.add_argument("--no-amp", action="store_true")
    args = p.parse_args()
    for f in dataclasses.fields(cfg):
        if hasattr(args, f.name):
            setattr(cfg, f.name, getattr(args, f.name))
    cfg.amp = cfg.amp and not args.no_amp
    return cfg


def main():
    cfg = parse_config()
    device = comm.init()
    torch.manual_seed(cfg.seed)

    n = n_samples(cfg.data_file)
    train_idx, val_idx = rank_indices(n, cfg.val_fraction, comm.rank(), comm.size(), cfg.seed)
    local_batch = cfg.global_batch_size // comm.size()
    train_loader = DataLoader(CubeDataset(cfg.data_file, train_idx), batch_size=local_batch,
                              shuffle=True, drop_last=True, num_workers=2)
    val_loader = DataLoader(CubeDataset(cfg.data_file, val_idx), batch_size=local_batch, drop_last=True)

    model = CosmoFlow(n_out=len(cfg.target_names)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    comm.sync_model(model, optimizer)

    use_amp = cfg.amp and device.type == "cuda"
    scaler = torch.cuda.amp.GradScaler(enabled=use_amp)
    if comm.is_root():
        os.makedirs(cfg.out_dir, exist_ok=True)
        print(f"ranks={comm.size()} local_batch={local_batch} train/rank={len(train_idx)} amp={use_amp}")

    for epoch in range(cfg.epochs):
        model.train()
        t0 = time.time()
        for x, y in train_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            optimizer.zero_grad()
            with torch.autocast(device_type=device.type, enabled=use_amp):
                loss = F.mse_loss(model(x), y)
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()

        model.eval()
        val_sum, val_batches = 0.0, 0
        with torch.no_grad():
            for x, y in val_loader:
                x, y = x.to(device), y.to(device)
                val_sum += F.mse_loss(model(x), y).item()
                val_batches += 1
        # equal val blocks and drop_last: every rank averages the same number of batches
        val_loss = comm.allreduce_mean(val_sum / max(val_batches, 1), "val_loss")

        if comm.is_root():
            print(f"epoch {epoch:3d}  val_mse {val_loss:.5f}  {time.time() - t0:.1f}s", flush=True)
            if (epoch + 1) % cfg.checkpoint_every == 0 or epoch + 1 == cfg.epochs:
                torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "config": dataclasses.asdict(cfg)},
                           os.path.join(cfg.out_dir, f"cosmoflow_e{epoch + 1:03d}.pt"))


if __name__ == "__main__":
    main()
