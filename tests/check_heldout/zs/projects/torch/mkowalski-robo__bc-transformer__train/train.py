#!/usr/bin/env python
"""Train a transformer BC policy on teleop demos.

    horovodrun -np 8 python train.py --data-dir /datasets/kitchen_demos --epochs 100
"""
import argparse
import dataclasses

import numpy as np
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from bct.config import TrainConfig
from bct.data import WindowDataset, action_stats, load_episodes
from bct.distributed import is_main, setup
from bct.model import TransformerPolicy
from bct.trainer import Trainer


def parse_args():
    p = argparse.ArgumentParser()
    for f in dataclasses.fields(TrainConfig):
        if f.name == "tags":
            continue
        flag = "--" + f.name.replace("_", "-")
        if f.type is bool or f.type == "bool":
            p.add_argument(flag, action="store_true")
        else:
            typ = str if f.default is None else type(f.default)
            p.add_argument(flag, type=typ, default=f.default)
    return TrainConfig(**vars(p.parse_args()))


def main():
    cfg = parse_args()
    device = setup()
    torch.manual_seed(cfg.seed)
    np.random.seed(cfg.seed)

    episodes = load_episodes(cfg.data_dir, cfg.synthetic_episodes, cfg.obs_dim, cfg.act_dim)
    n_val = max(1, int(len(episodes) * cfg.val_fraction))
    train_eps, val_eps = episodes[n_val:], episodes[:n_val]
    stats = action_stats(train_eps)
    train_ds = WindowDataset(train_eps, cfg.horizon, stats)
    val_ds = WindowDataset(val_eps, cfg.horizon, stats)

    import horovod.torch as hvd
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(),
                                       shuffle=True, seed=cfg.seed, drop_last=True)
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=cfg.batch_size, sampler=train_sampler,
                              num_workers=2, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=cfg.batch_size, sampler=val_sampler)

    model = TransformerPolicy(cfg.obs_dim, cfg.act_dim, cfg.d_model, cfg.n_layers, cfg.n_heads,
                              cfg.horizon, cfg.grad_ckpt).to(device)
    trainer = Trainer(cfg, model, train_loader, val_loader, device, stats)

    for epoch in range(trainer.start_epoch, cfg.epochs):
        trainer.train_epoch(epoch)
        val_mse = trainer.validate()
        if is_main():
            print(f"epoch {epoch}: val_mse(ema) {val_mse:.5f}", flush=True)
        trainer.save(epoch)


if __name__ == "__main__":
    main()
