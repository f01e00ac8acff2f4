"""Curriculum + class-balanced sampling for the defect classifier.

Each epoch draws `epoch_size` indices from the easiest `frac(epoch)` of the training
pool, weighted by inverse class frequency. The draw uses a generator seeded with the
epoch only, so every Horovod rank draws the same list and keeps its own stride of it.
"""
import math
import os
import sys
from typing import Dict

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

import horovod.torch as hvd

DEFAULTS: Dict = {
    "data": "data/defects.npz",
    "epochs": 24,
    "epoch_size": 60000,
    "batch_size": 64,          # per rank
    "lr_per_256": 0.1,
    "start_frac": 0.3,
    "full_at_epoch": 12,
    "amp": True,
    "out": "out/defects",
    "seed": 17,
}


def curriculum_frac(epoch, cfg):
    t = min(1.0, epoch / max(1, cfg["full_at_epoch"]))
    return cfg["start_frac"] + (1.0 - cfg["start_frac"]) * t


def draw_indices(difficulty, labels, epoch, cfg):
    order = np.argsort(difficulty, kind="stable")
    pool = order[: max(1, int(len(order) * curriculum_frac(epoch, cfg)))]
    counts = np.bincount(labels[pool], minlength=labels.max() + 1).astype(np.float64)
    w = 1.0 / np.maximum(counts[labels[pool]], 1)
    rng = np.random.default_rng(cfg["seed"] * 1000 + epoch)
    return rng.choice(pool, size=cfg["epoch_size"], replace=True, p=w / w.sum())


def to_tensor(x):
    return torch.from_numpy(x).permute(0, 3, 1, 2).float().div_(255.0)


def make_model(num_classes):
    def block(i, o):
        return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o),
                             nn.ReLU(inplace=True), nn.MaxPool2d(2))
    return nn.Sequential(block(3, 32), block(32, 64), block(64, 128),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, num_classes))


def run(cfg):
    hvd.init()
    torch.manual_seed(cfg["seed"])
    cuda = torch.cuda.is_available()
    if cuda:
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda" if cuda else "cpu")
    is_root = hvd.rank() == 0

    blob = np.load(cfg["data"])
    x_tr, y_tr, diff = blob["x_train"], blob["y_train"].astype(np.int64), blob["difficulty"]
    x_va, y_va = blob["x_val"], blob["y_val"].astype(np.int64)
    n_cls = int(y_tr.max()) + 1

    model = make_model(n_cls).to(dev)
    global_batch = cfg["batch_size"] * hvd.size()
    lr = cfg["lr_per_256"] * global_batch / 256
    opt = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=1e-4)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    sched = torch.optim.lr_scheduler.OneCycleLR(
        opt, max_lr=lr, epochs=cfg["epochs"],
        steps_per_epoch=cfg["epoch_size"] // global_batch)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    scaler = torch.cuda.amp.GradScaler(enabled=cfg["amp"] and cuda)
    steps = cfg["epoch_size"] // global_batch

    for epoch in range(cfg["epochs"]):
        idx = draw_indices(diff, y_tr, epoch, cfg)
        mine = idx[hvd.rank()::hvd.size()][: steps * cfg["batch_size"]]
        model.train()
        for s in range(steps):
            b = mine[s * cfg["batch_size"]:(s + 1) * cfg["batch_size"]]
            xb, yb = to_tensor(x_tr[b]).to(dev), torch.from_numpy(y_tr[b]).to(dev)
            opt.zero_grad()
            with torch.autocast(device_type=dev.type, enabled=cfg["amp"] and cuda):
                loss = F.cross_entropy(model(xb), yb, label_smoothing=0.05)
            scaler.scale(loss).backward()
            opt.synchronize()
            scaler.unscale_(opt)
            nn.utils.clip_grad_norm_(model.parameters(), 2.0)
            with opt.skip_synchronize():
                scaler.step(opt)
            scaler.update()
            sched.step()

        # validation set is small: rank 0 scores all of it, the others go on
        if is_root:
            model.eval()
            correct = 0
            with torch.no_grad():
                for s in range(0, len(y_va), 512):
                    out = model(to_tensor(x_va[s:s + 512]).to(dev))
                    correct += (out.argmax(1).cpu() == torch.from_numpy(y_va[s:s + 512])).sum().item()
            acc = correct / len(y_va)
            print(f"epoch {epoch:02d} frac={curriculum_frac(epoch, cfg):.2f} "
                  f"loss={loss.item():.4f} val_acc={acc:.4f}", flush=True)
            os.makedirs(cfg["out"], exist_ok=True)
            torch.save({"epoch": epoch, "model": model.state_dict(), "acc": acc},
                       os.path.join(cfg["out"], "model.pt"))


def parse_overrides(argv):
    cfg = dict(DEFAULTS)
    for item in argv:
        key, _, value = item.partition("=")
        if key not in cfg:
            raise SystemExit(f"unknown option {key}")
        cfg[key] = type(cfg[key])(value) if not isinstance(cfg[key], bool) else value == "true"
    return cfg


if __name__ == "__main__":
    run(parse_overrides(sys.argv[1:]))
