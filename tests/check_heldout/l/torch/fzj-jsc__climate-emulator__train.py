"""Train a next-step emulator for coarse ERA5 fields (t2m, z500, u10, v10, ...).

The global batch is fixed in the config and split over the workers, so the
learning rate in the config is the learning rate of the run, whatever the
number of workers (strong scaling).

    srun -n 16 python train.py --config configs/era5_1p4deg.yaml
"""
import argparse
import logging
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import yaml
import horovod.torch as hvd

log = logging.getLogger("emulator")


class ERA5Window(torch.utils.data.Dataset):
    """(T, C, H, W) float32 memmap, normalised per channel; sample i -> (x_i, x_{i+lead})."""

    def __init__(self, path, shape, lead=1, indices=None):
        self.data = np.memmap(path, dtype=np.float32, mode="r", shape=tuple(shape))
        self.lead = lead
        self.indices = np.arange(shape[0] - lead) if indices is None else np.asarray(indices)

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, i):
        t = int(self.indices[i])
        return torch.from_numpy(np.array(self.data[t])), torch.from_numpy(np.array(self.data[t + self.lead]))


class ResBlock(nn.Module):
    def __init__(self, ch):
        super().__init__()
        self.c1 = nn.Conv2d(ch, ch, 3, padding=1, padding_mode="circular")
        self.c2 = nn.Conv2d(ch, ch, 3, padding=1, padding_mode="circular")
        self.n1, self.n2 = nn.GroupNorm(8, ch), nn.GroupNorm(8, ch)

    def forward(self, x):
        return x + self.c2(F.gelu(self.n2(self.c1(F.gelu(self.n1(x))))))


class Emulator(nn.Module):
    def __init__(self, channels, width=128, depth=8, dropout=0.1):
        super().__init__()
        self.inp = nn.Conv2d(channels, width, 3, padding=1, padding_mode="circular")
        self.blocks = nn.Sequential(*[ResBlock(width) for _ in range(depth)])
        self.drop = nn.Dropout2d(dropout)
        self.out = nn.Conv2d(width, channels, 1)

    def forward(self, x):
        return x + self.out(self.drop(self.blocks(self.inp(x))))


def lat_weights(h, device):
    lat = torch.linspace(-90, 90, h, device=device)
    w = torch.cos(torch.deg2rad(lat))
    return (w / w.mean()).view(1, 1, h, 1)


def epoch_indices(n, epoch, seed, rank, size):
    """Same permutation on every rank (seed + epoch), then every size-th index from `rank`."""
    perm = np.random.default_rng(seed + epoch).permutation(n)
    return perm[rank::size]


def run_validation(model, dataset, batch, device, w):
    model.eval()
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch)
    sq_err = torch.zeros((), dtype=torch.float64)
    count = torch.zeros((), dtype=torch.float64)
    with torch.no_grad():
        for x, y in loader:
            pred = model(x.to(device))
            sq_err += (w * (pred - y.to(device)) ** 2).sum().double().cpu()
            count += y.numel()
    model.train()
    totals = hvd.allreduce(torch.stack([sq_err, count]), op=hvd.Sum, name="val_rmse")
    return float(torch.sqrt(totals[0] / totals[1]))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", required=True)
    parser.add_argument("--run-dir", default="runs/emulator")
    cli = parser.parse_args()

    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        torch.set_num_threads(max(1, (os.cpu_count() or 2) // hvd.local_size()))
        device = torch.device("cpu")

    # rank 0 reads the config; everyone uses exactly what rank 0 read
    cfg = None
    if hvd.rank() == 0:
        with open(cli.config) as f:
            cfg = yaml.safe_load(f)
    cfg = hvd.broadcast_object(cfg, root_rank=0, name="config")

    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR,
                        format="%(asctime)s %(message)s")
    # per-rank seeds: dropout and the augmentation noise differ between workers;
    # the weights themselves come from rank 0 (broadcast below)
    torch.manual_seed(cfg["seed"] + 1000 * hvd.rank())

    shape = cfg["data"]["shape"]
    n_train = cfg["data"]["n_train"]
    full = ERA5Window(cfg["data"]["path"], shape, lead=cfg["data"]["lead"])
    train_ids = full.indices[:n_train]
    val_ids = full.indices[n_train:]

    global_batch = cfg["train"]["global_batch"]
    if global_batch % hvd.size():
        raise SystemExit(f"global_batch {global_batch} is not divisible by {hvd.size()} workers")
    local_batch = global_batch // hvd.size()

    model = Emulator(shape[1], cfg["model"]["width"], cfg["model"]["depth"]).to(device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=cfg["train"]["lr"],
                                  weight_decay=cfg["train"]["weight_decay"])
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    w = lat_weights(shape[2], device)
    val_set = ERA5Window(cfg["data"]["path"], shape, cfg["data"]["lead"],
                         val_ids[hvd.rank()::hvd.size()])
    step, ckpt_every = 0, cfg["train"]["ckpt_every"]
    os.makedirs(cli.run_dir, exist_ok=True)
    for epoch in range(cfg["train"]["epochs"]):
        ids = train_ids[epoch_indices(len(train_ids), epoch, cfg["seed"], hvd.rank(), hvd.size())]
        loader = torch.utils.data.DataLoader(ERA5Window(cfg["data"]["path"], shape, cfg["data"]["lead"], ids),
                                             batch_size=local_batch, shuffle=False, num_workers=4)
        t0 = time.time()
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            x = x + cfg["train"]["input_noise"] * torch.randn_like(x)
            loss = (w * (model(x) - y) ** 2).mean()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            step += 1
            if step % ckpt_every == 0 and hvd.rank() == 0:
                torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                            "step": step, "config": cfg}, os.path.join(cli.run_dir, "latest.pt"))
        # ranks can hold one batch more or less than the others: wait for everybody
        hvd.join()
        rmse = run_validation(model, val_set, 2 * local_batch, device, w)
        log.info("epoch %d  step %d  val lat-weighted RMSE %.4f  (%.0fs)", epoch, step, rmse, time.time() - t0)

    if hvd.rank() == 0:
        torch.save({"model": model.state_dict(), "config": cfg}, os.path.join(cli.run_dir, "final.pt"))


if __name__ == "__main__":
    main()
