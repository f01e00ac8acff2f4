"""CosmoFlow-lite training with Horovod on Perlmutter.

From the NERSC Deep Learning at Scale school material; config is a dataclass, override with
--set key=value (e.g. --set lr=2e-3 --set epochs=40).
srun -N 4 --ntasks-per-node 4 --gpus-per-node 4 python train.py --data $SCRATCH/cosmoUniverse_small
"""
import argparse
import dataclasses
import os
import time
from dataclasses import dataclass

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from cosmo.data import make_loader
from cosmo.model import CosmoFlowLite
from hpcutils.reduce import global_mean, gather_timings
from hpcutils.timer import Throughput, timed


@dataclass
class Config:
    data: str = "./data/cosmo"
    out: str = "./runs/cosmo"
    epochs: int = 16
    batch_size: int = 8          # per rank
    lr: float = 1e-3             # single-GPU learning rate
    weight_decay: float = 0.0
    warmup_epochs: int = 4
    workers: int = 2
    log_every: int = 10
    save_every: int = 2


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--data")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    a = p.parse_args()
    cfg = Config()
    if a.data:
        cfg.data = a.data
    for kv in a.set:
        key, value = kv.split("=", 1)
        field = {f.name: f for f in dataclasses.fields(Config)}[key]
        setattr(cfg, key, field.type(value) if callable(field.type) else value)
    return cfg


def lr_at(cfg, epoch, peak):
    if epoch < cfg.warmup_epochs:
        return peak * (epoch + 1) / cfg.warmup_epochs
    return peak * 0.5 ** ((epoch - cfg.warmup_epochs) // 4)


def main():
    cfg = parse()
    hvd.init()
    device = torch.device("cpu")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    torch.manual_seed(1)

    train_loader, train_sampler = make_loader(os.path.join(cfg.data, "train"), cfg.batch_size,
                                              shuffle=True, workers=cfg.workers)
    val_loader, _ = make_loader(os.path.join(cfg.data, "validation"), cfg.batch_size,
                                shuffle=False, workers=cfg.workers)

    model = CosmoFlowLite().to(device)
    peak_lr = cfg.lr * hvd.size()
    optimizer = torch.optim.Adam(model.parameters(), lr=peak_lr, weight_decay=cfg.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    if hvd.rank() == 0:
        os.makedirs(cfg.out, exist_ok=True)
        print(cfg, flush=True)

    for epoch in range(cfg.epochs):
        for g in optimizer.param_groups:
            g["lr"] = lr_at(cfg, epoch, peak_lr)
        train_sampler.set_epoch(epoch)
        model.train()
        meter, timings = Throughput(), {}
        t_epoch = time.perf_counter()
        running = 0.0
        for step, (x, y) in enumerate(train_loader):
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            with timed(timings, "compute"):
                optimizer.zero_grad()
                loss = F.mse_loss(model(x), y)
                loss.backward()
                optimizer.step()
            running += loss.item()
            meter.step(x.size(0))
            if step % cfg.log_every == 0 and hvd.rank() == 0:
                print(f"ep {epoch} step {step} loss {loss.item():.5f} "
                      f"{meter.rate:.1f} samples/s/rank", flush=True)
        epoch_times = gather_timings(time.perf_counter() - t_epoch)

        model.eval()
        val_loss, n = 0.0, 0
        with torch.no_grad():
            for x, y in val_loader:
                x, y = x.to(device), y.to(device)
                val_loss += F.mse_loss(model(x), y, reduction="sum").item() / y.shape[1]
                n += x.size(0)
        val_loss = global_mean(val_loss / max(n, 1), "val_loss")
        train_loss = global_mean(running / max(len(train_loader), 1), "train_loss")

        if hvd.rank() == 0:
            print(f"epoch {epoch} train_loss {train_loss:.5f} val_loss {val_loss:.5f} "
                  f"epoch_time min/max {min(epoch_times):.1f}/{max(epoch_times):.1f}s "
                  f"compute {timings.get('compute', 0):.1f}s", flush=True)
            if (epoch + 1) % cfg.save_every == 0 or epoch + 1 == cfg.epochs:
                torch.save({"epoch": epoch, "model": model.state_dict(),
                            "optimizer": optimizer.state_dict(), "config": dataclasses.asdict(cfg)},
                           os.path.join(cfg.out, f"cosmoflow_ep{epoch:03d}.pt"))


if __name__ == "__main__":
    main()
