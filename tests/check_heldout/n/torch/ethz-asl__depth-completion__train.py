"""Depth completion (KITTI) training with Horovod + AMP.

Usage: horovodrun -np 4 python train.py --data-dir /datasets/kitti_depth --epochs 30
"""
import argparse
import json
import os
import random
import time

import numpy as np
import torch
import horovod.torch as hvd

from depthnet.config import TrainConfig
from depthnet.data import build_loader
from depthnet.losses import error_sums, masked_l2
from depthnet.model import DepthCompletionNet
from depthnet.optim import build_optimizer, build_scheduler


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data-dir")
    p.add_argument("--batch-size", type=int)
    p.add_argument("--epochs", type=int)
    p.add_argument("--lr", type=float)
    p.add_argument("--pretrained")
    p.add_argument("--out-dir")
    p.add_argument("--no-amp", dest="amp", action="store_false", default=None)
    return p.parse_args()


def seed_all(seed):
    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def validate(model, loader, amp):
    model.eval()
    sums = torch.zeros(3, device="cuda")
    with torch.no_grad():
        for rgb, sparse, gt in loader:
            rgb, sparse, gt = rgb.cuda(), sparse.cuda(), gt.cuda()
            with torch.autocast("cuda", enabled=amp):
                pred = model(rgb, sparse)
            sums += error_sums(pred.float(), gt)
    sums = hvd.allreduce(sums, op=hvd.Sum, name="val_err")
    rmse = torch.sqrt(sums[0] / sums[2]).item()
    mae = (sums[1] / sums[2]).item()
    return rmse, mae


def main():
    cfg = TrainConfig().update(vars(get_args()))
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    seed_all(cfg.seed)

    # linear scaling rule
    cfg.lr = cfg.lr * hvd.size()

    train_loader = build_loader(cfg, "train")
    val_loader = build_loader(cfg, "val")

    model = DepthCompletionNet(cfg.max_depth).cuda()
    optimizer = build_optimizer(cfg, model)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scheduler = build_scheduler(cfg, optimizer)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    if cfg.pretrained and hvd.rank() == 0:
        if os.path.exists(cfg.pretrained):
            sd = torch.load(cfg.pretrained, map_location="cpu")
            missing, _ = model.encoder.load_state_dict(sd, strict=False)
            print(f"loaded encoder weights from {cfg.pretrained} ({len(missing)} missing keys)")
        else:
            print(f"warning: {cfg.pretrained} not found, training from scratch")

    scaler = torch.cuda.amp.GradScaler(enabled=cfg.amp)
    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        with open(os.path.join(cfg.out_dir, "config.json"), "w") as f:
            json.dump(cfg.to_dict(), f, indent=2)

    best = float("inf")
    for epoch in range(cfg.epochs):
        train_loader.sampler.set_epoch(epoch)
        model.train()
        t0 = time.time()
        for step, (rgb, sparse, gt) in enumerate(train_loader):
            rgb, sparse, gt = rgb.cuda(non_blocking=True), sparse.cuda(non_blocking=True), gt.cuda(non_blocking=True)
            optimizer.zero_grad()
            with torch.autocast("cuda", enabled=cfg.amp):
                pred = model(rgb, sparse)
            loss = masked_l2(pred.float(), gt)
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.clip_grad)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            if step % 100 == 0 and hvd.rank() == 0:
                print(f"[{epoch}][{step}/{len(train_loader)}] loss={loss.item():.4f} "
                      f"lr={optimizer.param_groups[0]['lr']:.2e} {time.time() - t0:.0f}s")
        scheduler.step()

        rmse, mae = validate(model, val_loader, cfg.amp)
        if hvd.rank() == 0:
            print(f"epoch {epoch}: RMSE {rmse:.1f} mm, MAE {mae:.1f} mm")
            state = {"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()}
            torch.save(state, os.path.join(cfg.out_dir, "last.pth"))
            if rmse < best:
                best = rmse
                torch.save(state, os.path.join(cfg.out_dir, "best.pth"))


if __name__ == "__main__":
    main()
