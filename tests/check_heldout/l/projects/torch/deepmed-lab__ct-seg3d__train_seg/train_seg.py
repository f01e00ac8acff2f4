"""3-D U-Net for kidney/tumour segmentation (KiTS23), data-parallel with Horovod.

    horovodrun -np 4 python train_seg.py --config configs/kits_unet.yaml
"""
import argparse
import os
import time

import numpy as np
import torch
import yaml
import horovod.torch as hvd
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler

from seg3d.data import CTVolumes
from seg3d.io_utils import load_checkpoint, save_checkpoint
from seg3d.losses import UncertaintyDiceCE, hard_dice_per_class
from seg3d.optim import build_optimizer, poly_lr
from seg3d.unet import UNet3D


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default="configs/kits_unet.yaml")
    parser.add_argument("--resume", default=None)
    parser.add_argument("--amp", action="store_true")
    return parser.parse_args()


def validate(model, loader, num_classes):
    model.eval()
    scores = []
    with torch.no_grad():
        for img, lbl in loader:
            logits = model(img.cuda(non_blocking=True))
            scores.append(hard_dice_per_class(logits, lbl.cuda(non_blocking=True), num_classes))
    model.train()
    return np.mean(scores, axis=0)


def main():
    args = parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)

    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    torch.backends.cudnn.benchmark = True

    dcfg, mcfg, ocfg, tcfg = cfg["data"], cfg["model"], cfg["optim"], cfg["train"]
    train_set = CTVolumes(dcfg["root"], "train", dcfg["patch_size"], dcfg["patches_per_volume"])
    val_set = CTVolumes(dcfg["root"], "val")
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(),
                                     shuffle=False)
    train_loader = DataLoader(train_set, batch_size=dcfg["batch_size"], sampler=train_sampler,
                              num_workers=dcfg["num_workers"], pin_memory=True, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=1, sampler=val_sampler, num_workers=2)

    model = UNet3D(mcfg["in_channels"], mcfg["num_classes"], mcfg["base_channels"],
                   mcfg["depth"]).cuda()
    criterion = UncertaintyDiceCE(mcfg["num_classes"]).cuda()

    # Horovod: scale the learning rate with the number of workers
    ocfg["lr"] = ocfg["lr"] * hvd.size()
    optimizer = build_optimizer(ocfg, model, criterion)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    base_lrs = [g["lr"] for g in optimizer.param_groups]
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp)

    start_epoch, best_dice = 0, 0.0
    if args.resume:
        start_epoch, best_dice = load_checkpoint(args.resume, model, optimizer)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    for epoch in range(start_epoch, tcfg["epochs"]):
        train_sampler.set_epoch(epoch)
        poly_lr(optimizer, base_lrs, epoch, tcfg["epochs"])
        t0, running = time.time(), 0.0
        for img, lbl in train_loader:
            img, lbl = img.cuda(non_blocking=True), lbl.cuda(non_blocking=True)
            with torch.cuda.amp.autocast(enabled=args.amp):
                loss = criterion(model(img), lbl)
            optimizer.zero_grad()
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            torch.nn.utils.clip_grad_norm_(model.parameters(), 12.0)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()
            running += loss.item()

        if hvd.rank() == 0:
            print(f"epoch {epoch} loss {running / len(train_loader):.4f} ({time.time() - t0:.0f}s)")

        if (epoch + 1) % tcfg["val_every"] == 0:
            dice = validate(model, val_loader, mcfg["num_classes"])
            mean_dice = float(dice.mean())
            if hvd.rank() == 0:
                print(f"  val dice kidney {dice[0]:.4f} tumour {dice[1]:.4f} mean {mean_dice:.4f}")
            is_best = mean_dice > best_dice
            best_dice = max(best_dice, mean_dice)
            save_checkpoint(tcfg["out_dir"], model, optimizer, epoch, best_dice, is_best)


if __name__ == "__main__":
    main()
