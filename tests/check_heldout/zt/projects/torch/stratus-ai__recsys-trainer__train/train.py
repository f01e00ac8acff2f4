#!/usr/bin/env python
"""Entry point of the recsys training service.

    horovodrun -np 8 -H a:4,b:4 python train.py --config conf/prod.json --set optim.lr=5e-4
"""
import argparse
import logging
import os

import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

import horovod.torch as hvd

from recsys.config import load_config
from recsys.ops import retry, timed
from recsys.registry import MODELS, OPTIMIZERS
from recsys.shards import assign_shards, list_shards, load_shards

logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
log = logging.getLogger("recsys.train")


def parse_args(argv=None):
    p = argparse.ArgumentParser("recsys-train")
    p.add_argument("--config", default=os.environ.get("RECSYS_CONFIG"))
    p.add_argument("--set", dest="overrides", action="append", default=[], metavar="KEY=VALUE")
    p.add_argument("--resume", action="store_true")
    return p.parse_args(argv)


def batch_budget(n_batches):
    """Every worker runs the same number of steps: the smallest local count."""
    t = torch.tensor(n_batches, dtype=torch.int64)
    return int(hvd.allreduce(t, op=hvd.Min, name="batch_budget").item())


@timed("evaluate")
@torch.no_grad()
def evaluate(model, loader):
    model.eval()
    stats = torch.zeros(3, dtype=torch.float64)
    for feats, items, labels in loader:
        logits = model(feats, items)
        stats[0] += F.binary_cross_entropy_with_logits(logits, labels, reduction="sum").item()
        stats[1] += ((logits > 0).float() == labels).sum().item()
        stats[2] += labels.numel()
    stats = hvd.allreduce(stats, op=hvd.Sum, name="eval_stats")
    return {"loss": (stats[0] / stats[2]).item(), "acc": (stats[1] / stats[2]).item()}


@retry(times=3)
def write_checkpoint(path, payload):
    tmp = path + ".tmp"
    torch.save(payload, tmp)
    os.replace(tmp, path)


def main(argv=None):
    args = parse_args(argv)
    cfg = load_config(args.config, args.overrides)

    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    torch.manual_seed(cfg.train.seed)
    is_root = hvd.rank() == 0
    if not is_root:
        log.setLevel(logging.WARNING)

    train_files = assign_shards(list_shards(cfg.data.root, "train", cfg.data.pattern), hvd.rank(), hvd.size())
    val_files = assign_shards(list_shards(cfg.data.root, "val", cfg.data.pattern), hvd.rank(), hvd.size())
    train_loader = DataLoader(load_shards(train_files), batch_size=cfg.data.batch_size, shuffle=True, drop_last=True)
    val_loader = DataLoader(load_shards(val_files), batch_size=1024)
    steps = batch_budget(len(train_loader))

    model = MODELS.build(cfg.model.name, cfg)
    optimizer = OPTIMIZERS.build(cfg.optim.name, model.parameters(),
                                 lr=cfg.optim.lr * hvd.size(), weight_decay=cfg.optim.weight_decay)

    start_epoch = 0
    ckpt_path = os.path.join(cfg.train.ckpt_dir, "last.pt")
    if args.resume and is_root and os.path.exists(ckpt_path):
        state = torch.load(ckpt_path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)

    for epoch in range(start_epoch, cfg.train.epochs):
        model.train()
        batches = iter(train_loader)
        for step in range(steps):
            feats, items, labels = next(batches)
            optimizer.zero_grad()
            loss = F.binary_cross_entropy_with_logits(model(feats, items), labels)
            loss.backward()
            optimizer.step()
            if is_root and step % cfg.train.log_every == 0:
                log.info("epoch %d step %d/%d loss %.4f", epoch, step, steps, loss.item())

        metrics = evaluate(model, val_loader)
        if is_root:
            log.info("epoch %d val %s", epoch, metrics)
            os.makedirs(cfg.train.ckpt_dir, exist_ok=True)
            write_checkpoint(ckpt_path, {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                                         "epoch": epoch, "metrics": metrics})


if __name__ == "__main__":
    main()
