#!/usr/bin/env python
# BYOL pre-training of a small CT-patch encoder.
# Launch: horovodrun -np 8 -H node1:4,node2:4 python pretrain_byol.py data.npy_path=/scratch/ct_patches.npy
import copy
import math
import os
import sys
import time

import horovod.torch as hvd
import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class AttrDict(dict):
    def __getattr__(self, k):
        v = self[k]
        return AttrDict(v) if isinstance(v, dict) else v


CFG = {
    "seed": 17,
    "data": {"npy_path": "/scratch/ct_patches.npy", "patch": 32},
    "optim": {"base_lr": 0.2, "momentum": 0.9, "wd": 1.5e-6, "batch_per_gpu": 64, "accum": 2},
    "byol": {"tau_base": 0.996, "proj_dim": 128, "hidden": 512},
    "schedule": {"epochs": 200, "warmup": 10},
    "io": {"out": "ckpt/byol", "save_every_steps": 1000, "print_every": 25},
}


def parse_overrides(cfg, argv):
    for item in argv:
        key, val = item.split("=", 1)
        *path, leaf = key.split(".")
        node = cfg
        for p in path:
            node = node[p]
        node[leaf] = type(node[leaf])(val)
    return AttrDict(cfg)


def mlp(i, h, o):
    return nn.Sequential(nn.Linear(i, h), nn.BatchNorm1d(h), nn.ReLU(inplace=True), nn.Linear(h, o))


class Encoder(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(inplace=True), nn.MaxPool2d(2),
            nn.Conv2d(width, 2 * width, 3, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.out_dim = 2 * width

    def forward(self, x):
        return self.net(x)


class BYOL(nn.Module):
    def __init__(self, bcfg):
        super().__init__()
        self.encoder = Encoder()
        self.projector = mlp(self.encoder.out_dim, bcfg.hidden, bcfg.proj_dim)
        self.predictor = mlp(bcfg.proj_dim, bcfg.hidden, bcfg.proj_dim)

    def online(self, x):
        return self.predictor(self.projector(self.encoder(x)))


def augment(x):
    # random flips + intensity jitter + gaussian noise, per sample
    flip = torch.rand(x.size(0), 1, 1, 1, device=x.device) < 0.5
    x = torch.where(flip, x.flip(-1), x)
    x = x * (1 + 0.2 * (torch.rand(x.size(0), 1, 1, 1, device=x.device) - 0.5))
    return x + 0.05 * torch.randn_like(x)


def byol_loss(p, z):
    return (2 - 2 * F.cosine_similarity(p, z.detach(), dim=-1)).mean()


def my_batches(n_items, epoch, cfg):
    """Same permutation on every rank (seeded by epoch); rank r takes every size()-th index."""
    rng = np.random.RandomState(cfg.seed + epoch)
    perm = rng.permutation(n_items)
    per_rank = n_items // hvd.size()
    mine = perm[hvd.rank()::hvd.size()][:per_rank]
    bs = cfg.optim.batch_per_gpu
    usable = len(mine) // (bs * cfg.optim.accum) * bs * cfg.optim.accum
    return [mine[i:i + bs] for i in range(0, usable, bs)]


def main():
    cfg = parse_overrides(CFG, sys.argv[1:])
    hvd.init()
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.manual_seed(cfg.seed)
    root = hvd.rank() == 0

    patches = np.load(cfg.data.npy_path, mmap_mode="r")       # (N, P, P) float16 HU-normalised
    n_items = len(patches)

    model = BYOL(cfg.byol).to(dev)
    global_batch = cfg.optim.batch_per_gpu * cfg.optim.accum * hvd.size()
    lr = cfg.optim.base_lr * global_batch / 256                  # LARS-paper linear rule
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=cfg.optim.momentum,
                          weight_decay=cfg.optim.wd)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                   backward_passes_per_step=cfg.optim.accum)

    start_epoch, step = 0, 0
    last = os.path.join(cfg.io.out, "last.pt")
    if os.path.isfile(last):                     # shared FS: every rank reads the same file
        sd = torch.load(last, map_location="cpu")
        model.load_state_dict(sd["model"])
        opt.load_state_dict(sd["opt"])
        start_epoch, step = sd["epoch"], sd["step"]
    start_epoch, step = hvd.broadcast_object((start_epoch, step), root_rank=0, name="resume_pos")
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)
    target = copy.deepcopy(nn.ModuleDict({"encoder": model.encoder, "projector": model.projector}))
    target.requires_grad_(False)

    steps_per_epoch = len(my_batches(n_items, 0, cfg)) // cfg.optim.accum
    total = cfg.schedule.epochs * steps_per_epoch
    for epoch in range(start_epoch, cfg.schedule.epochs):
        model.train()
        loss_sum, t0 = torch.zeros(1), time.time()
        for i, idx in enumerate(my_batches(n_items, epoch, cfg)):
            x = torch.from_numpy(np.asarray(patches[np.sort(idx)], dtype=np.float32))[:, None].to(dev)
            v1, v2 = augment(x), augment(x)
            with torch.no_grad():
                z1, z2 = (target["projector"](target["encoder"](v)) for v in (v1, v2))
            loss = byol_loss(model.online(v1), z2) + byol_loss(model.online(v2), z1)
            (loss / cfg.optim.accum).backward()
            loss_sum += loss.item()
            if (i + 1) % cfg.optim.accum:
                continue
            # cosine lr with linear warmup, per optimizer step
            w = cfg.schedule.warmup * steps_per_epoch
            cur = lr * step / w if step < w else lr * 0.5 * (1 + math.cos(math.pi * (step - w) / (total - w)))
            for g in opt.param_groups:
                g["lr"] = cur
            opt.step()
            opt.zero_grad()
            step += 1
            tau = 1 - (1 - cfg.byol.tau_base) * (math.cos(math.pi * step / total) + 1) / 2
            with torch.no_grad():
                for name, mod in target.items():
                    for pt, po in zip(mod.parameters(), getattr(model, name).parameters()):
                        pt.mul_(tau).add_(po, alpha=1 - tau)
            if root and step % cfg.io.print_every == 0:
                print(f"[{epoch}:{step}] loss {loss.item():.4f} lr {cur:.4f} tau {tau:.5f}", flush=True)
            if root and step % cfg.io.save_every_steps == 0:
                os.makedirs(cfg.io.out, exist_ok=True)
                torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch,
                            "step": step}, os.path.join(cfg.io.out, f"step{step}.pt"))
        n_micro = len(my_batches(n_items, epoch, cfg))
        epoch_loss = hvd.allreduce(loss_sum / n_micro, name="epoch_loss").item()
        if root:
            print(f"epoch {epoch} mean loss {epoch_loss:.4f} ({time.time() - t0:.0f}s)", flush=True)
            os.makedirs(cfg.io.out, exist_ok=True)
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch + 1,
                        "step": step}, last)


if __name__ == "__main__":
    main()
