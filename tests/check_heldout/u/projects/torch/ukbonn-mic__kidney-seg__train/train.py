#!/usr/bin/env python
# Kidney / tumour segmentation on KiTS19 axial slices, multi-GPU with Horovod.
#   horovodrun -np 8 -H node1:4,node2:4 python train.py --config configs/default.yaml
# Ported from our DDP trainer (train_ddp.py, not maintained anymore).
import argparse
import os
import time

import torch
import torch.nn.functional as F
import yaml

import horovod.torch as hvd

from data.kits import build_loaders
from models import build_model
from utils.dist import get_world_size, init_distributed, is_main_process, save_on_master, sync_model
from utils.metrics import DiceMeter

DEFAULTS = dict(data_root="/data/kits19/slices_256", model="unet_m", in_ch=1, num_classes=3,
                batch_size=8, lr=5e-4, weight_decay=1e-4, epochs=100, workers=4, amp=True,
                clip=1.0, seed=1234, out_dir="runs/debug", resume="")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--config", default="configs/default.yaml")
    p.add_argument("--opts", nargs="*", default=[], help="key=value overrides")
    args = p.parse_args()
    cfg = dict(DEFAULTS)
    if args.config and os.path.exists(args.config):
        with open(args.config) as f:
            cfg.update(yaml.safe_load(f) or {})
    for kv in args.opts:
        k, v = kv.split("=", 1)
        cfg[k] = type(DEFAULTS[k])(v) if k in DEFAULTS and not isinstance(DEFAULTS[k], bool) else yaml.safe_load(v)
    return cfg


def dice_ce_loss(logits, target, num_classes, eps=1e-5):
    ce = F.cross_entropy(logits, target)
    prob = logits.float().softmax(1)
    onehot = F.one_hot(target, num_classes).permute(0, 3, 1, 2).float()
    inter = (prob * onehot).sum((0, 2, 3))
    denom = prob.sum((0, 2, 3)) + onehot.sum((0, 2, 3))
    dice = 1 - ((2 * inter + eps) / (denom + eps))[1:].mean()
    return ce + dice


def main():
    cfg = parse_args()
    rank, world_size = init_distributed()
    torch.manual_seed(cfg["seed"])
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    use_amp = cfg["amp"] and device.type == "cuda"

    train_loader, val_loader, train_sampler = build_loaders(cfg, rank, world_size)

    model = build_model(cfg["model"], in_ch=cfg["in_ch"], num_classes=cfg["num_classes"]).to(device)
    base_lr = cfg["lr"] * get_world_size()
    optimizer = torch.optim.AdamW(model.parameters(), lr=base_lr, weight_decay=cfg["weight_decay"])
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=cfg["epochs"])
    scaler = torch.cuda.amp.GradScaler(enabled=use_amp)

    start_epoch, best = 0, 0.0
    if cfg["resume"]:
        ckpt = torch.load(cfg["resume"], map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        start_epoch, best = ckpt["epoch"] + 1, ckpt.get("best", 0.0)

    sync_model(model, optimizer)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    if is_main_process():
        os.makedirs(cfg["out_dir"], exist_ok=True)
        with open(os.path.join(cfg["out_dir"], "config.yaml"), "w") as f:
            yaml.safe_dump(cfg, f)

    for epoch in range(start_epoch, cfg["epochs"]):
        model.train()
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        for it, (img, mask) in enumerate(train_loader):
            img, mask = img.to(device, non_blocking=True), mask.to(device, non_blocking=True)
            optimizer.zero_grad()
            with torch.autocast(device_type=device.type, enabled=use_amp):
                loss = dice_ce_loss(model(img), mask, cfg["num_classes"])
            scaler.scale(loss).backward()
            # horovod + GradScaler: finish the allreduce before unscaling / clipping
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg["clip"])
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            if it % 50 == 0 and is_main_process():
                print(f"ep {epoch} it {it}/{len(train_loader)} loss {loss.item():.4f}", flush=True)
        scheduler.step()

        model.eval()
        meter = DiceMeter(cfg["num_classes"])
        with torch.no_grad():
            for img, mask in val_loader:
                meter.update(model(img.to(device)), mask.to(device))
        dice = meter.compute()
        mean_dice = sum(dice.values()) / len(dice)
        if is_main_process():
            print(f"epoch {epoch} ({time.time() - t0:.0f}s) dice kidney {dice[1]:.4f} tumour {dice[2]:.4f}")
        state = dict(model=model.state_dict(), optimizer=optimizer.state_dict(),
                     scheduler=scheduler.state_dict(), epoch=epoch, best=max(best, mean_dice), cfg=cfg)
        save_on_master(state, os.path.join(cfg["out_dir"], "last.pth"))
        if mean_dice > best:
            best = mean_dice
            save_on_master(state, os.path.join(cfg["out_dir"], "best.pth"))


if __name__ == "__main__":
    main()
