"""Quantile GRU for one-day Value-at-Risk on a panel of equity returns.

horovodrun -np 4 -H localhost:4 python train_hvd.py --epochs 20
"""
import argparse
import dataclasses

import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from varlib import VaRConfig
from varlib.data import simulate_returns, train_val
from varlib.model import QuantileGRU
from varlib.trainer import Trainer


def parse() -> VaRConfig:
    cfg = VaRConfig()
    ap = argparse.ArgumentParser()
    for f in dataclasses.fields(cfg):
        if f.type in (int, float, str, "int", "float", "str"):
            ap.add_argument("--" + f.name.replace("_", "-"), type=type(getattr(cfg, f.name)),
                            default=getattr(cfg, f.name))
    ns = ap.parse_args()
    return dataclasses.replace(cfg, **vars(ns))


def run(cfg: VaRConfig):
    hvd.init()
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(1)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())

    dates, r = simulate_returns(n_tickers=cfg.tickers, seed=cfg.seed)
    train_ds, val_ds = train_val(dates, r, cfg.val_start, cfg.lookback)

    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=cfg.batch_size, shuffle=True, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=1024, sampler=val_sampler)

    model = QuantileGRU(cfg.hidden, cfg.quantiles)
    trainer = Trainer(model, cfg, steps_per_epoch=len(train_loader))
    trainer.fit(train_loader, val_loader, sampler=train_sampler)


if __name__ == "__main__":
    run(parse())
