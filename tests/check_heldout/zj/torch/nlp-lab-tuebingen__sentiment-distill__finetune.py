"""Fine-tune the tiny encoder on SST-2 token ids with Horovod.

Usage:
    horovodrun -np 4 -H localhost:4 python finetune.py --cfg configs/sst2_small.yaml
"""
import argparse
import json
import logging
import os
import random

import horovod.torch as hvd
import numpy as np
import torch
import yaml

from textcls.data import make_loader
from textcls.defaults import get_config
from textcls.engine import Callback, Trainer
from textcls.modeling import build_model
from textcls.optim import create_optimizer, linear_warmup_decay


class ProgressLogger(Callback):
    def __init__(self, every):
        self.every = every

    def on_step_end(self, trainer, step, loss):
        if step % self.every == 0 and hvd.rank() == 0:
            logging.info("step %d  loss %.4f  lr %.2e", step, loss.item(),
                         trainer.scheduler.get_last_lr()[0])

    def on_epoch_end(self, trainer, epoch, metrics):
        if hvd.rank() == 0:
            logging.info("epoch %d  %s", epoch, json.dumps(metrics))


class BestCheckpoint(Callback):
    def __init__(self, out_dir, monitor="accuracy"):
        self.out_dir, self.monitor, self.best = out_dir, monitor, float("-inf")

    def on_epoch_end(self, trainer, epoch, metrics):
        if metrics[self.monitor] > self.best:
            self.best = metrics[self.monitor]
            os.makedirs(self.out_dir, exist_ok=True)
            torch.save({"epoch": epoch, "model": trainer.model.state_dict(), "metrics": metrics},
                       os.path.join(self.out_dir, "best.pt"))


def seed_everything(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cfg", default="configs/sst2_small.yaml")
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--epochs", type=int, default=None)
    args = ap.parse_args()

    with open(args.cfg) as fh:
        user = yaml.safe_load(fh) or {}
    if args.data_dir:
        user.setdefault("data", {})["dir"] = args.data_dir
    if args.epochs:
        user.setdefault("train", {})["epochs"] = args.epochs
    cfg = get_config(user)

    hvd.init()
    logging.basicConfig(level=logging.INFO, format=f"[rank {hvd.rank()}] %(message)s")
    seed_everything(cfg.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda")
    else:
        device = torch.device("cpu")

    train_loader = make_loader(cfg.data, "train", hvd.size(), hvd.rank(), train=True)
    eval_loader = make_loader(cfg.data, "dev", hvd.size(), hvd.rank(), train=False)

    model = build_model(cfg).to(device)
    optimizer = create_optimizer(model, cfg.optim)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    total_steps = cfg.train.epochs * len(train_loader)
    scheduler = linear_warmup_decay(optimizer, total_steps, cfg.optim.warmup_ratio)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    callbacks = [ProgressLogger(cfg.train.log_every)]
    if hvd.rank() == 0:
        callbacks.append(BestCheckpoint(cfg.train.out_dir))
    trainer = Trainer(model, optimizer, scheduler, train_loader, eval_loader, cfg, device, callbacks)
    trainer.fit()


if __name__ == "__main__":
    main()
