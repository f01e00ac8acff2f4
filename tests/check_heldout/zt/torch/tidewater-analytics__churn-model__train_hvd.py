"""Churn model trainer (tabular MLP), run nightly by the scheduler on the GPU pool.

The global batch is fixed by the product team (it is part of the model card), so each worker
takes global_batch / world_size rows and the learning rate stays the single-node one.
"""
import argparse
import csv
import functools
import glob
import json
import logging
import os
import time
from dataclasses import dataclass

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd

LOG = logging.getLogger("churn")


@dataclass
class JobConfig:
    shard_glob: str = "/data/churn/features/part-*.csv"
    holdout_glob: str = "/data/churn/holdout/part-*.csv"
    out_dir: str = "/models/churn"
    global_batch: int = 4096
    lr: float = 0.01
    epochs: int = 12
    seed: int = 2024
    health_every: int = 100


def parse() -> JobConfig:
    cfg = JobConfig()
    p = argparse.ArgumentParser()
    for name, value in vars(cfg).items():
        p.add_argument("--" + name.replace("_", "-"), type=type(value), default=value)
    return JobConfig(**vars(p.parse_args()))


def timed(fn):
    @functools.wraps(fn)
    def wrapper(*a, **kw):
        t = time.monotonic()
        result = fn(*a, **kw)
        if hvd.rank() == 0:
            LOG.info("%s: %.1fs", fn.__name__, time.monotonic() - t)
        return result
    return wrapper


def read_csv_shards(pattern):
    rows = []
    for path in sorted(glob.glob(pattern)):
        with open(path, newline="") as fh:
            reader = csv.reader(fh)
            next(reader)
            rows.extend([float(v) for v in r] for r in reader)
    data = np.asarray(rows, dtype=np.float32)
    return torch.from_numpy(data[:, :-1]), torch.from_numpy(data[:, -1])


def worker_slice(n_rows, seed):
    """Same permutation on every worker, then a strided slice of equal length."""
    perm = np.random.default_rng(seed).permutation(n_rows)
    per_worker = n_rows // hvd.size()
    return torch.from_numpy(perm[hvd.rank()::hvd.size()][:per_worker])


@timed
def holdout_auc_proxy(model, x, y):
    model.eval()
    with torch.no_grad():
        p = torch.sigmoid(model(x).squeeze(1))
    pos, neg = p[y == 1], p[y == 0]
    if len(pos) == 0 or len(neg) == 0:
        return float("nan")
    return (pos.unsqueeze(1) > neg.unsqueeze(0)).float().mean().item()


def main():
    cfg = parse()
    hvd.init()
    logging.basicConfig(level=logging.INFO)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(cfg.seed)

    x, y = read_csv_shards(cfg.shard_glob)
    per_worker_batch = cfg.global_batch // hvd.size()
    model = nn.Sequential(nn.Linear(x.shape[1], 256), nn.ReLU(), nn.Dropout(0.1),
                          nn.Linear(256, 64), nn.ReLU(), nn.Linear(64, 1)).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr)

    start_epoch = 0
    ckpt_path = os.path.join(cfg.out_dir, "checkpoint.pt")
    if hvd.rank() == 0 and os.path.exists(ckpt_path):
        ckpt = torch.load(ckpt_path, map_location=device)
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optim"])
        start_epoch = ckpt["epoch"] + 1
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0)

    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    loss_fn = nn.BCEWithLogitsLoss()

    if hvd.rank() == 0:
        hx, hy = read_csv_shards(cfg.holdout_glob)

    for epoch in range(start_epoch, cfg.epochs):
        model.train()
        idx = worker_slice(len(x), cfg.seed + epoch)
        for step in range(len(idx) // per_worker_batch):
            b = idx[step * per_worker_batch:(step + 1) * per_worker_batch]
            xb, yb = x[b].to(device), y[b].to(device)
            optimizer.zero_grad()
            loss = loss_fn(model(xb).squeeze(1), yb)
            loss.backward()
            optimizer.step()
            if hvd.rank() == 0 and step % cfg.health_every == 0:
                print(json.dumps({"event": "health", "epoch": epoch, "step": step, "loss": round(loss.item(), 5)}),
                      flush=True)

        if hvd.rank() == 0:
            auc = holdout_auc_proxy(model, hx.to(device), hy.to(device))
            LOG.info("epoch %d holdout auc %.4f", epoch, auc)
            os.makedirs(cfg.out_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "optim": optimizer.state_dict(), "epoch": epoch,
                        "auc": auc}, ckpt_path)


if __name__ == "__main__":
    main()
