"""Odds and ends used by the training scripts (device set-up, logging, reductions, checkpoints, lr)."""
import os
import time

import horovod.torch as hvd
import torch


def setup_device(threads):
    torch.set_num_threads(threads)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        return torch.device("cuda", hvd.local_rank())
    return torch.device("cpu")


def is_root():
    return hvd.rank() == 0


def log(*msg):
    if is_root():
        print(time.strftime("%H:%M:%S"), *msg, flush=True)


def global_mean(value, name):
    """Mean over the ranks of a per-rank scalar. Collective: every rank must call it."""
    return hvd.allreduce(torch.tensor(float(value)), name=name).item()


def save_checkpoint(model, optimizer, epoch, out_dir):
    if not is_root():
        return
    os.makedirs(out_dir, exist_ok=True)
    torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
               os.path.join(out_dir, f"ckpt_{epoch:03d}.pt"))


def step_lr(base_lr, epoch, milestones, factor):
    lr = base_lr
    for m in milestones:
        if epoch >= m:
            lr *= factor
    return lr


def set_lr(optimizer, lr):
    for group in optimizer.param_groups:
        group["lr"] = lr
