#!/usr/bin/env python
"""Train entry point.

    horovodrun -np 4 python train.py data.root=/data/tabular optim.base_lr=0.01

Overrides are `dotted.key=value` pairs (hydra style, without hydra) and OMEGAHVD_* env vars.
"""
import os
import sys
import time

import torch
import horovod.torch as hvd

from omegahvd.conf import load_config, apply_overrides, env_overrides, pretty
from omegahvd.data import make_datasets, PartitionedLoader
from omegahvd.model import build_model
from omegahvd.engine import Engine
from omegahvd.tracking import get_tracker


def main(argv):
    cfg = load_config(os.environ.get("OMEGAHVD_CONFIG", "configs/default.yaml"))
    cfg = apply_overrides(cfg, argv)
    cfg = env_overrides(cfg, prefix="OMEGAHVD_")

    hvd.init()
    torch.manual_seed(cfg.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        torch.cuda.manual_seed(cfg.seed)
    torch.set_num_threads(cfg.runtime.threads)

    if hvd.rank() == 0:
        print(pretty(cfg))

    train_set, val_set = make_datasets(cfg.data)
    # every rank draws the same permutation (same seed) and keeps its own slice of it
    train_loader = PartitionedLoader(train_set, cfg.data.batch_size, rank=hvd.rank(),
                                     world=hvd.size(), seed=cfg.seed, shuffle=True)
    val_loader = PartitionedLoader(val_set, cfg.data.batch_size, rank=hvd.rank(),
                                   world=hvd.size(), seed=cfg.seed, shuffle=False)

    model = build_model(cfg.model)
    if torch.cuda.is_available():
        model.cuda()

    # gradients are SUMMED over ranks below, so the per-worker lr is the effective lr:
    # Sum over N ranks == N x the averaged gradient, i.e. lr scaled by N
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.optim.base_lr,
                                momentum=cfg.optim.momentum, weight_decay=cfg.optim.wd)
    optimizer = hvd.DistributedOptimizer(optimizer,
                                         named_parameters=model.named_parameters(),
                                         op=hvd.Sum)

    start_epoch = 0
    if cfg.resume and os.path.exists(cfg.resume):
        if hvd.rank() == 0:
            state = torch.load(cfg.resume, map_location="cpu")
            model.load_state_dict(state["model"])
            optimizer.load_state_dict(state["optim"])
            start_epoch = state["epoch"] + 1
        start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    tracker = get_tracker(cfg.tracking, enabled=hvd.rank() == 0)
    tracker.log_params(cfg)

    engine = Engine(model, optimizer, cfg)
    for epoch in range(start_epoch, cfg.optim.epochs):
        train_loader.set_epoch(epoch)
        t0 = time.time()
        train_loss = engine.train_epoch(train_loader, epoch)
        val_stats = engine.evaluate(val_loader)
        if hvd.rank() == 0:
            print("epoch %d | train loss %.4f | val loss %.4f | val acc %.4f | %.1fs"
                  % (epoch, train_loss, val_stats["loss"], val_stats["acc"], time.time() - t0))
            tracker.log_metrics({"train/loss": train_loss, "val/loss": val_stats["loss"],
                                 "val/acc": val_stats["acc"]}, step=epoch)
            if (epoch + 1) % cfg.ckpt.every == 0 or epoch + 1 == cfg.optim.epochs:
                os.makedirs(cfg.ckpt.dir, exist_ok=True)
                torch.save({"model": model.state_dict(), "optim": optimizer.state_dict(),
                            "epoch": epoch}, os.path.join(cfg.ckpt.dir, "last.pt"))
    tracker.finish()


if __name__ == "__main__":
    main(sys.argv[1:])
