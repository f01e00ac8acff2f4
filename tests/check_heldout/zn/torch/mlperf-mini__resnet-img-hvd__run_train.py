#!/usr/bin/env python3
"""MLPerf-style image classification run (small ResNet, 32x32 inputs), Horovod data parallel.

Run through run_and_time.sh:  mpirun -np $NGPU python run_train.py --config configs/dgx1.json
Stops when eval top-1 reaches --target-accuracy or after --max-epochs.
"""
import argparse
import math
import os
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from mlperf_utils import mllog
from mlperf_utils.mllog import init_horovod, rank0_only
from runner.config import RunConfig
from runner.data import ShardedArrayData
from runner.model import resnet_small


@rank0_only
def save_checkpoint(path, model, optimizer, epoch, acc):
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "epoch": epoch, "eval_accuracy": acc}, path)


def lr_at(step, cfg, steps_per_epoch):
    warm = cfg.warmup_epochs * steps_per_epoch
    total = cfg.max_epochs * steps_per_epoch
    if step < warm:
        return cfg.peak_lr * (step + 1) / warm
    progress = (step - warm) / max(1, total - warm)
    return cfg.peak_lr * 0.5 * (1 + math.cos(math.pi * progress))


def evaluate(model, data, device):
    model.eval()
    stats = torch.zeros(2, dtype=torch.float64)
    with torch.no_grad():
        for x, y in data.batches(train=False):
            pred = model(x.to(device)).argmax(1).cpu()
            stats += torch.tensor([(pred == y).sum().item(), y.numel()], dtype=torch.float64)
    stats = hvd.allreduce(stats, op=hvd.Sum, name="eval_stats")
    model.train()
    return (stats[0] / stats[1]).item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="")
    ap.add_argument("--data", default="/data/imagenet32")
    ap.add_argument("--ckpt", default="results/checkpoint.pt")
    args = ap.parse_args()

    rank, world, local_rank = init_horovod()
    cfg = RunConfig.from_json(args.config) if args.config else RunConfig()
    cfg.world_size = world
    device = torch.device(f"cuda:{local_rank}" if torch.cuda.is_available() else "cpu")

    mllog.event(mllog.INIT_START)
    mllog.event(mllog.GLOBAL_BATCH_SIZE, cfg.global_batch_size)
    mllog.event(mllog.OPT_BASE_LR, cfg.peak_lr)
    torch.manual_seed(cfg.seed)

    data = ShardedArrayData(args.data, cfg.local_batch_size, rank, world, seed=cfg.seed)
    model = resnet_small(num_classes=data.num_classes).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=cfg.peak_lr, momentum=0.9,
                                weight_decay=cfg.weight_decay, nesterov=True)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         backward_passes_per_step=cfg.grad_accum)
    mllog.event(mllog.INIT_STOP)

    steps_per_epoch = data.steps_per_epoch() // cfg.grad_accum
    step, acc = 0, 0.0
    mllog.event(mllog.RUN_START)
    for epoch in range(cfg.max_epochs):
        mllog.event(mllog.EPOCH_START, epoch)
        t0 = time.time()
        data.set_epoch(epoch)
        micro = 0
        for x, y in data.batches(train=True):
            x, y = x.to(device), y.to(device)
            loss = F.cross_entropy(model(x), y, label_smoothing=cfg.label_smoothing) / cfg.grad_accum
            loss.backward()
            micro += 1
            if micro % cfg.grad_accum == 0:
                for g in optimizer.param_groups:
                    g["lr"] = lr_at(step, cfg, steps_per_epoch)
                optimizer.step()
                optimizer.zero_grad()
                step += 1
        acc = evaluate(model, data, device)
        mllog.event(mllog.EVAL_ACCURACY, acc, epoch=epoch)
        mllog.event(mllog.EPOCH_STOP, epoch, throughput=world * data.steps_per_epoch() * cfg.local_batch_size
                    / (time.time() - t0))
        save_checkpoint(args.ckpt, model, optimizer, epoch, acc)
        if acc >= cfg.target_accuracy:
            break
    mllog.event(mllog.RUN_STOP, status="success" if acc >= cfg.target_accuracy else "aborted")


if __name__ == "__main__":
    main()
