#!/usr/bin/env python
"""Train SegLite on Cityscapes with Horovod.

    horovodrun -np 8 -H node1:4,node2:4 python tools/train.py \
        --config configs/cityscapes_r18.yaml SOLVER.EPOCHS 100
"""
import argparse
import datetime
import logging
import os
import sys
import time

sys.path.insert(0, os.path.abspath(os.path.join(os.path.dirname(__file__), "..")))

import torch
import torch.nn as nn
import horovod.torch as hvd

from seglite.build import build_dataloader, build_model, build_optimizer, build_scheduler
from seglite.checkpoint import Checkpointer, is_main_process
from seglite.config import load_config
from seglite.evaluation import evaluate

logger = logging.getLogger("seglite")


def parse_args():
    parser = argparse.ArgumentParser(description="SegLite training")
    parser.add_argument("--config", default="configs/cityscapes_r18.yaml", help="experiment yaml")
    parser.add_argument("--resume", default="", help="checkpoint to resume from")
    parser.add_argument("--eval-only", action="store_true")
    parser.add_argument("opts", nargs=argparse.REMAINDER, help="KEY VALUE overrides")
    return parser.parse_args()


def setup_logging(output_dir):
    level = logging.INFO if is_main_process() else logging.WARNING
    handlers = [logging.StreamHandler(sys.stdout)]
    if is_main_process():
        os.makedirs(output_dir, exist_ok=True)
        handlers.append(logging.FileHandler(os.path.join(output_dir, "log.txt")))
    logging.basicConfig(level=level, format="[%(asctime)s] %(message)s", handlers=handlers)


def train_one_epoch(cfg, model, criterion, optimizer, scheduler, loader, epoch, device):
    model.train()
    end = time.time()
    for it, (images, targets) in enumerate(loader):
        images = images.to(device, non_blocking=True)
        targets = targets.to(device, non_blocking=True)

        loss = criterion(model(images), targets)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()

        if it % cfg.SOLVER.LOG_PERIOD == 0:
            logger.info("epoch %d iter %d/%d loss %.4f lr %.6f (%.2fs/it)", epoch, it, len(loader),
                        loss.item(), optimizer.param_groups[0]["lr"],
                        (time.time() - end) / (it + 1))


def main():
    args = parse_args()
    cfg = load_config(args.config, args.opts)

    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(cfg.SEED)
    setup_logging(cfg.OUTPUT_DIR)
    logger.info("world size %d, config %s", hvd.size(), args.config)

    device = torch.device(cfg.MODEL.DEVICE)
    model = build_model(cfg)
    criterion = nn.CrossEntropyLoss(ignore_index=cfg.DATA.IGNORE_INDEX)

    optimizer = build_optimizer(cfg, model)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    train_loader = build_dataloader(cfg, is_train=True, distributed=cfg.DISTRIBUTED)
    val_loader = build_dataloader(cfg, is_train=False, distributed=cfg.DISTRIBUTED)
    scheduler = build_scheduler(cfg, optimizer, iters_per_epoch=len(train_loader))

    checkpointer = Checkpointer(model, optimizer, scheduler, cfg.OUTPUT_DIR)
    start_epoch = 0
    if args.resume and hvd.rank() == 0:
        start_epoch = checkpointer.load(args.resume)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    scheduler.last_iter = start_epoch * len(train_loader)

    if args.eval_only:
        logger.info("eval: %s", evaluate(model, val_loader, cfg.MODEL.NUM_CLASSES, device))
        return

    best = 0.0
    t0 = time.time()
    for epoch in range(start_epoch, cfg.SOLVER.EPOCHS):
        if hasattr(train_loader.sampler, "set_epoch"):
            train_loader.sampler.set_epoch(epoch)
        train_one_epoch(cfg, model, criterion, optimizer, scheduler, train_loader, epoch, device)

        metrics = evaluate(model, val_loader, cfg.MODEL.NUM_CLASSES, device)
        logger.info("epoch %d  mIoU %.4f  pixAcc %.4f", epoch, metrics["mIoU"], metrics["pixAcc"])
        if metrics["mIoU"] > best:
            best = metrics["mIoU"]
            checkpointer.save("model_best", epoch=epoch, mIoU=best)
        if (epoch + 1) % cfg.SOLVER.CKPT_PERIOD == 0:
            checkpointer.save(f"model_{epoch:04d}", epoch=epoch)

    checkpointer.save("model_final", epoch=cfg.SOLVER.EPOCHS - 1)
    logger.info("done in %s, best mIoU %.4f",
                datetime.timedelta(seconds=int(time.time() - t0)), best)


if __name__ == "__main__":
    main()
