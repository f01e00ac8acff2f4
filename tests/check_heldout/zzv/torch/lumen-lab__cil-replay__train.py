#!/usr/bin/env python
"""Class-incremental training with exemplar replay and a growing linear head.

    horovodrun -np 4 python train.py --data data/cifar100.npz --tasks 10 --epochs 30
"""
import argparse
import dataclasses
import json
import os

import numpy as np
import torch
import horovod.torch as hvd

from cil.data import load_npz, make_task_splits, task_loader, eval_loader
from cil.replay import ExemplarBuffer
from cil.model import build_model
from cil.engine import Trainer
from cil.utils import get_logger, fmt_accs


@dataclasses.dataclass
class Config:
    data: str = "data/cifar100.npz"
    out_dir: str = "runs/cil_replay"
    tasks: int = 10
    epochs: int = 30
    batch_size: int = 64
    lr: float = 0.05
    momentum: float = 0.9
    weight_decay: float = 5e-4
    memory: int = 2000
    seed: int = 1993
    amp: bool = False
    resume: bool = False


def parse_config() -> Config:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for f in dataclasses.fields(Config):
        flag = "--" + f.name.replace("_", "-")
        if isinstance(f.default, bool):
            p.add_argument(flag, action="store_true")
        else:
            p.add_argument(flag, type=type(f.default), default=f.default)
    return Config(**vars(p.parse_args()))


def main():
    cfg = parse_config()
    hvd.init()
    torch.manual_seed(cfg.seed)
    np.random.seed(cfg.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    log = get_logger("cil", hvd.rank())
    log.info("workers=%d config=%s", hvd.size(), json.dumps(dataclasses.asdict(cfg)))

    train, test = load_npz(cfg.data)
    order = make_task_splits(train[1], cfg.tasks, seed=cfg.seed)
    class_map = {c: i for i, c in enumerate(c for task in order for c in task)}
    buffer = ExemplarBuffer(cfg.memory, seed=cfg.seed)

    model = build_model(in_ch=train[0].shape[1], n_classes=len(class_map)).to(device)
    # per-worker batch is fixed, so the step size grows with the number of workers
    trainer = Trainer(model, cfg, device, lr=cfg.lr * hvd.size())

    os.makedirs(cfg.out_dir, exist_ok=True)
    ckpt_path = os.path.join(cfg.out_dir, "last.pt")
    first_task = 0
    if cfg.resume and os.path.exists(ckpt_path):
        first_task = trainer.load(ckpt_path, buffer, train)
        log.info("resumed after task %d", first_task - 1)
    trainer.sync()

    history = []
    for t in range(first_task, cfg.tasks):
        trainer.begin_task(t, n_new=len(order[t]))
        loader = task_loader(train, order[t], buffer, class_map, cfg.batch_size,
                             hvd.rank(), hvd.size(), seed=cfg.seed + t)
        for epoch in range(cfg.epochs):
            loader.sampler.set_epoch(epoch)
            loss = trainer.train_epoch(loader)
            log.info("task %d epoch %d loss(worker0) %.4f", t, epoch, loss)
        buffer.update(train, order[t])

        accs = {k: trainer.evaluate(eval_loader(test, order[k], class_map, 256, hvd.rank(), hvd.size()))
                for k in range(t + 1)}
        history.append(accs)
        log.info("after task %d: %s | avg %.3f", t, fmt_accs(accs), sum(accs.values()) / len(accs))

        if hvd.rank() == 0:
            trainer.save(ckpt_path, t + 1, buffer)
            with open(os.path.join(cfg.out_dir, "accs.json"), "w") as fh:
                json.dump(history, fh)


if __name__ == "__main__":
    main()
