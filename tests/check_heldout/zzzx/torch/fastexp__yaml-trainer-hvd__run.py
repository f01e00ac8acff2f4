#!/usr/bin/env python
"""horovodrun -np 8 -H host1:4,host2:4 python run.py -c configs/default.yaml [--opts key=value ...]"""
import argparse

import torch
import horovod.torch as hvd

from fexp.config import load_config, merge_opts
from fexp import dist
from fexp.builders import build_dataloaders, build_model, build_optimizer, build_scheduler
from fexp.engine import Engine
from fexp.logger import get_logger


def parse_args():
    parser = argparse.ArgumentParser(description="fastexp trainer")
    parser.add_argument("-c", "--config", default="configs/default.yaml")
    parser.add_argument("--resume", default="", help="checkpoint path, overrides cfg.train.resume")
    parser.add_argument("--distributed", action="store_true",
                        help="average gradients across workers with horovod")
    parser.add_argument("--opts", nargs="*", default=[], help="override config, e.g. optim.lr=0.1")
    return parser.parse_args()


def main():
    args = parse_args()
    cfg = merge_opts(load_config(args.config), args.opts)
    if args.resume:
        cfg["train"]["resume"] = args.resume

    device = dist.setup(cfg)
    logger = get_logger(cfg["train"]["out_dir"], is_master=dist.is_master())
    logger.info("world size %d, config:\n%s", hvd.size(), cfg)

    train_loader, val_loader = build_dataloaders(cfg)
    model = build_model(cfg).to(device)
    optimizer = build_optimizer(cfg, model)
    if args.distributed:
        optimizer = hvd.DistributedOptimizer(optimizer,
                                             named_parameters=model.named_parameters(),
                                             compression=hvd.Compression.none)
    scheduler = build_scheduler(cfg, optimizer, steps_per_epoch=len(train_loader))

    engine = Engine(cfg, model, optimizer, scheduler, device, logger)
    if cfg["train"]["resume"]:
        engine.load(cfg["train"]["resume"])

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    engine.run(train_loader, val_loader)


if __name__ == "__main__":
    main()
