#!/usr/bin/env python
"""Train an image classifier with EMA weights on N GPUs.

    horovodrun -np 8 python train.py --config configs/c10_convnet.json optim.lr=0.1 train.epochs=120
"""
import argparse
import logging
import os

import horovod.torch as hvd
import torch
import torch.nn.functional as F

from emat import models  # noqa: F401  registers the architectures
from emat.config import load_config
from emat.data import build_loaders
from emat.hooks import CheckpointHook, CosineLrHook, EMAHook, EvalHook, LoggerHook
from emat.registry import MODELS, build_optimizer
from emat.trainer import Trainer

logger = logging.getLogger("emat")


def parse_args():
    parser = argparse.ArgumentParser(description="emat trainer")
    parser.add_argument("--config", default=None, help="json file with overrides of emat.config.Config")
    parser.add_argument("--work-dir", default="work_dirs/c10")
    parser.add_argument("--resume", action="store_true")
    parser.add_argument("opts", nargs="*", help="dotted key=value overrides")
    return parser.parse_args()


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    stats = torch.zeros(3, dtype=torch.float64)
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        logits = model(x)
        stats[0] += F.cross_entropy(logits, y, reduction="sum").item()
        stats[1] += (logits.argmax(1) == y).sum().item()
        stats[2] += y.numel()
    stats = hvd.allreduce(stats, op=hvd.Sum, name="eval_stats")
    return {"val_loss": (stats[0] / stats[2]).item(), "val_acc": (stats[1] / stats[2]).item()}


def main():
    args = parse_args()
    hvd.init()
    cfg = load_config(args.config, args.opts)

    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = torch.device("cuda", hvd.local_rank())
    else:
        device = torch.device("cpu")
    torch.manual_seed(cfg.seed)
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(message)s")
    logger.info("world size %d, config %s", hvd.size(), cfg.to_dict())

    train_loader, val_loader, train_sampler = build_loaders(cfg.data, rank=hvd.rank(),
                                                            world_size=hvd.size())

    model = MODELS.build(cfg.model.name, num_classes=cfg.model.num_classes).to(device)
    # lr in the config is for a single GPU; linear scaling with the number of workers
    base_lr = cfg.optim.lr * hvd.size()
    optimizer = build_optimizer(cfg.optim, model.parameters(), lr_scale=hvd.size())
    compression = hvd.Compression.fp16 if cfg.train.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression,
                                         backward_passes_per_step=cfg.train.accum_steps)

    start_epoch = 0
    ckpt = os.path.join(args.work_dir, "latest.pth")
    if args.resume and hvd.rank() == 0 and os.path.exists(ckpt):
        state = torch.load(ckpt, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
        logger.info("resumed from %s at epoch %d", ckpt, start_epoch)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    hooks = [CosineLrHook(base_lr, cfg.train.epochs, warmup_epochs=5),
             EMAHook(cfg.train.ema_decay),
             EvalHook(val_loader, evaluate, use_ema=True),
             CheckpointHook(args.work_dir, interval=cfg.train.ckpt_interval),
             LoggerHook(cfg.train.log_interval)]
    trainer = Trainer(model, optimizer, train_loader, device, cfg.train, hooks=hooks,
                      sampler=train_sampler, is_master=hvd.rank() == 0)
    trainer.run(start_epoch, cfg.train.epochs)


if __name__ == "__main__":
    main()
