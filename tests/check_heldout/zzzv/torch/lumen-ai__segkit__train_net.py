#!/usr/bin/env python
"""segkit training entry.  horovodrun -np 4 python train_net.py --opts epochs=80 lr=0.02"""
import json
import logging
import os

import torch
import horovod.torch as hvd

from segkit import load_config
from segkit.dist import init_distributed, main_process
from segkit.datasets import build_dataloader
from segkit.model import TinyFCN
from segkit.trainer import SegTrainer

logger = logging.getLogger("segkit")


def main():
    cfg = load_config()
    rank, world = init_distributed(cfg)

    train_loader, train_sampler = build_dataloader(cfg, "train", rank, world)
    val_loader, _ = build_dataloader(cfg, "val", rank, world)

    model = TinyFCN(cfg.num_classes).to(cfg.device)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.lr * world, momentum=0.9,
                                weight_decay=cfg.weight_decay)
    start_epoch, best = 0, 0.0
    if cfg.resume:
        state = torch.load(cfg.resume, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch, best = state["epoch"] + 1, state["best"]

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    trainer = SegTrainer(cfg, model, optimizer, train_loader, val_loader, train_sampler)
    if cfg.eval_only:
        res = trainer.evaluate()
        if main_process():
            print(json.dumps(res))
        return

    for epoch in range(start_epoch, cfg.epochs):
        trainer.train_epoch(epoch)
        res = trainer.evaluate()
        if main_process():
            logger.info("epoch %d  mIoU %.4f  pixAcc %.4f", epoch, res["mIoU"], res["pixAcc"])
            trainer.save(os.path.join(cfg.output_dir, "last.pth"), epoch, best)
            if res["mIoU"] > best:
                best = res["mIoU"]
                trainer.save(os.path.join(cfg.output_dir, "best.pth"), epoch, best)
                with open(os.path.join(cfg.output_dir, "best.json"), "w") as f:
                    json.dump({"epoch": epoch, **res}, f)


if __name__ == "__main__":
    main()
