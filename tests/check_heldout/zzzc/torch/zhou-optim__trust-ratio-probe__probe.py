"""Per-layer trust ratios ||w|| / ||g|| of Adam vs SGD at growing batch size (AMP).

Writes one CSV row per (step, layer) to <out>/trust_<opt>_np<N>.csv.
"""
from __future__ import annotations

import argparse
import csv
import math
import os
from dataclasses import dataclass

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Subset, TensorDataset
import horovod.torch as hvd


@dataclass
class Cfg:
    opt: str = "adam"
    lr: float = 3e-4            # single-worker lr; scaled by sqrt(world) below
    batch: int = 64             # per worker
    epochs: int = 5
    clip: float = 1.0
    probe_every: int = 20
    out: str = "probe_out"
    ckpt: str = "probe_out/last.pt"
    amp: bool = True


def parse() -> Cfg:
    cfg = Cfg()
    ap = argparse.ArgumentParser()
    for k, v in vars(cfg).items():
        kind = (lambda s: s.lower() in ("1", "true", "yes")) if isinstance(v, bool) else type(v)
        ap.add_argument("--" + k.replace("_", "-"), type=kind, default=v)
    return Cfg(**vars(ap.parse_args()))


def toy_data(n, seed):
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, 128, generator=g)
    w = torch.randn(128, 8, generator=torch.Generator().manual_seed(12345))
    return TensorDataset(x, (x @ w).argmax(1))


def shard(ds, seed=0):
    perm = torch.randperm(len(ds), generator=torch.Generator().manual_seed(seed))
    per = len(ds) // hvd.size()
    return Subset(ds, perm[hvd.rank() * per:(hvd.rank() + 1) * per].tolist())


def build_opt(name, params, lr):
    if name == "adam":
        return torch.optim.AdamW(params, lr=lr, weight_decay=0.01)
    if name == "sgd":
        return torch.optim.SGD(params, lr=lr, momentum=0.9)
    raise KeyError(name)


def trust_ratios(model):
    out = {}
    for n, p in model.named_parameters():
        if p.grad is not None and p.ndim > 1:
            g = p.grad.float().norm().item()
            out[n] = p.detach().float().norm().item() / g if g > 0 else float("nan")
    return out


def save(path, model, opt, epoch):
    if hvd.rank() != 0:
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch}, path)


@torch.no_grad()
def validate(model, loader, dev):
    model.eval()
    s = torch.zeros(3)
    for x, y in loader:
        logits = model(x.to(dev)).float().cpu()
        s += torch.tensor([F.cross_entropy(logits, y, reduction="sum").item(),
                           (logits.argmax(1) == y).sum().item(), len(y)])
    s = hvd.allreduce(s, op=hvd.Sum, name="val")
    return (s[0] / s[2]).item(), (s[1] / s[2]).item()


def main(cfg: Cfg):
    hvd.init()
    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    dev = torch.device("cuda" if use_cuda else "cpu")

    train_loader = DataLoader(shard(toy_data(20000, 0)), batch_size=cfg.batch, shuffle=True, drop_last=True)
    val_loader = DataLoader(shard(toy_data(4000, 1)), batch_size=500)

    model = nn.Sequential(nn.Linear(128, 512), nn.GELU(), nn.Linear(512, 512), nn.GELU(),
                          nn.Linear(512, 8)).to(dev)
    opt = build_opt(cfg.opt, model.parameters(), cfg.lr * math.sqrt(hvd.size()))

    state = None
    if hvd.rank() == 0:
        if os.path.exists(cfg.ckpt):
            state = torch.load(cfg.ckpt, map_location="cpu")
        else:
            state = {"model": model.state_dict(), "opt": opt.state_dict(), "epoch": -1}
    state = hvd.broadcast_object(state, root_rank=0, name="init_state")
    model.load_state_dict(state["model"])
    opt.load_state_dict(state["opt"])
    first_epoch = state["epoch"] + 1

    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    scaler = torch.cuda.amp.GradScaler(enabled=cfg.amp and use_cuda)

    rows = []
    step = 0
    for epoch in range(first_epoch, cfg.epochs):
        model.train()
        for x, y in train_loader:
            x, y = x.to(dev), y.to(dev)
            opt.zero_grad()
            with torch.autocast(device_type=dev.type, enabled=cfg.amp and use_cuda):
                loss = F.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            opt.synchronize()
            scaler.unscale_(opt)
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
            if step % cfg.probe_every == 0:
                rows += [dict(step=step, layer=k, trust=v) for k, v in trust_ratios(model).items()]
            with opt.skip_synchronize():
                scaler.step(opt)
            scaler.update()
            step += 1
        vloss, vacc = validate(model, val_loader, dev)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: val_loss {vloss:.4f} val_acc {vacc:.4f}")
        save(cfg.ckpt, model, opt, epoch)

    if hvd.rank() == 0 and rows:
        os.makedirs(cfg.out, exist_ok=True)
        with open(os.path.join(cfg.out, f"trust_{cfg.opt}_np{hvd.size()}.csv"), "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=["step", "layer", "trust"])
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main(parse())
