#!/usr/bin/env python
"""Train a deep ensemble (all members in one job) with Horovod and report
accuracy / NLL / Brier / ECE on CIFAR-10 plus predictive entropy on SVHN (OOD).

    horovodrun -np 4 python train_ensemble.py --members 5 --epochs 100
"""
import argparse
import dataclasses
import logging
import os
import time
from dataclasses import dataclass

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from ensembles import DeepEnsemble, init_horovod
from ensembles.data import build_loaders
from ensembles.dist import sum_across_ranks
from ensembles.metrics import calibration_stats, merge, summarize

log = logging.getLogger("ensembles")


@dataclass
class Config:
    data_root: str = "./data"
    out_dir: str = "./runs/ensemble"
    members: int = 5
    epochs: int = 100
    global_batch: int = 512      # split evenly over workers
    lr: float = 0.1              # tuned for global_batch, no further scaling
    weight_decay: float = 5e-4
    seed: int = 17
    amp: bool = True
    clip: float = 5.0


def parse_config() -> Config:
    p = argparse.ArgumentParser()
    for f in dataclasses.fields(Config):
        if f.type in (bool, "bool"):
            p.add_argument("--" + f.name.replace("_", "-"), dest=f.name,
                           action=argparse.BooleanOptionalAction, default=f.default)
        else:
            p.add_argument("--" + f.name.replace("_", "-"), dest=f.name,
                           type=type(f.default), default=f.default)
    return Config(**vars(p.parse_args()))


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    stats, ent_sum, n = None, 0.0, 0
    for x, y in loader:
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        probs = DeepEnsemble.predictive(model(x)).float()
        stats = merge(stats, {k: v.cpu() for k, v in calibration_stats(probs, y).items()})
        ent_sum += -(probs * probs.clamp_min(1e-12).log()).sum().item()
        n += y.numel()
    stats["entropy"] = torch.tensor([ent_sum])
    return stats


@torch.no_grad()
def ood_entropy(model, loader, device):
    model.eval()
    ent, n = 0.0, 0
    for x, _ in loader:
        probs = DeepEnsemble.predictive(model(x.to(device))).float()
        ent += -(probs * probs.clamp_min(1e-12).log()).sum().item()
        n += x.shape[0]
    tot = sum_across_ranks({"ent": torch.tensor([ent]), "n": torch.tensor([float(n)])}, "ood")
    return (tot["ent"] / tot["n"]).item()


def main():
    cfg = parse_config()
    dist = init_horovod()
    logging.basicConfig(level=logging.INFO if dist.is_root else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(message)s")
    torch.manual_seed(cfg.seed)
    torch.set_num_threads(max(1, os.cpu_count() // max(1, hvd.local_size())))

    batch = cfg.global_batch // dist.size
    train_loader, test_loader, ood_loader = build_loaders(
        cfg.data_root, batch, dist.rank, dist.size, seed=cfg.seed)

    model = DeepEnsemble(cfg.members).to(dist.device)
    base_opt = torch.optim.SGD(model.parameters(), lr=cfg.lr, momentum=0.9,
                               weight_decay=cfg.weight_decay, nesterov=True)
    optimizer = hvd.DistributedOptimizer(base_opt, named_parameters=model.named_parameters())
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg.epochs)
    use_amp = cfg.amp and dist.device.type == "cuda"
    scaler = torch.cuda.amp.GradScaler(enabled=use_amp)

    ckpt_path = os.path.join(cfg.out_dir, "last.pt")
    start_epoch = 0
    if dist.is_root and os.path.exists(ckpt_path):
        state = torch.load(ckpt_path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
        log.info("resumed from %s (epoch %d)", ckpt_path, start_epoch)
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    for _ in range(start_epoch):
        scheduler.step()

    for epoch in range(start_epoch, cfg.epochs):
        model.train()
        t0, running = time.time(), 0.0
        for step, (x, y) in enumerate(train_loader):
            x, y = x.to(dist.device, non_blocking=True), y.to(dist.device, non_blocking=True)
            optimizer.zero_grad()
            with torch.autocast(device_type=dist.device.type, enabled=use_amp):
                logits = model(x)
                # each member gets its own NLL; sum keeps per-member gradient scale
                loss = sum(F.cross_entropy(l, y) for l in logits)
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            running += loss.item()
        scheduler.step()

        stats = sum_across_ranks(evaluate(model, test_loader, dist.device), "test")
        res = summarize(stats)
        res["entropy"] = (stats["entropy"] / stats["count"]).item()
        res["ood_entropy"] = ood_entropy(model, ood_loader, dist.device)
        log.info("epoch %d  loss %.4f  %s  (%.0fs)", epoch, running / max(1, step + 1),
                 "  ".join(f"{k} {v:.4f}" for k, v in res.items()), time.time() - t0)

        if dist.is_root:
            os.makedirs(cfg.out_dir, exist_ok=True)
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "epoch": epoch,
                        "config": dataclasses.asdict(cfg)}, ckpt_path)


if __name__ == "__main__":
    main()
