#!/usr/bin/env python3
"""3D U-Net for abdominal CT (liver + tumour), data parallel with Horovod.

    horovodrun -np 8 -H gpu01:4,gpu02:4 python train.py --data /shared/lits_npz
"""
import argparse
import os

import horovod.torch as hvd
import numpy as np
import torch
import torch.nn.functional as F
from torch.utils.data import DataLoader

from unet3d.data import PatchDataset, list_cases, load_case
from unet3d.losses import dice_ce_loss, dice_per_class
from unet3d.model import UNet3D
from utils.ckpt import find_latest, save_checkpoint

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/shared/lits_npz")
parser.add_argument("--ckpt-dir", default="/shared/checkpoints/unet3d")
parser.add_argument("--resume", default="auto", help="'auto' (latest in --ckpt-dir), a path, or ''")
parser.add_argument("--epochs", type=int, default=300)
parser.add_argument("--batch-size", type=int, default=2)
parser.add_argument("--lr", type=float, default=3e-4)
parser.add_argument("--patches-per-epoch", type=int, default=400, help="per worker")
parser.add_argument("--val-fraction", type=float, default=0.2)
parser.add_argument("--val-every", type=int, default=10)
parser.add_argument("--n-classes", type=int, default=3)


@torch.no_grad()
def sliding_window_predict(model, img, device, patch=96, stride=64):
    x = torch.from_numpy(img)[None, None].to(device)
    D, H, W = img.shape
    pad = [max(0, patch - s) for s in (W, H, D)]
    x = F.pad(x, (0, pad[0], 0, pad[1], 0, pad[2]))
    _, _, d, h, w = x.shape
    logits = torch.zeros((1, model.head.out_channels, d, h, w), device=device)
    counts = torch.zeros((1, 1, d, h, w), device=device)
    for z in list(range(0, d - patch, stride)) + [d - patch]:
        for y in list(range(0, h - patch, stride)) + [h - patch]:
            for xx in list(range(0, w - patch, stride)) + [w - patch]:
                logits[..., z:z + patch, y:y + patch, xx:xx + patch] += model(
                    x[..., z:z + patch, y:y + patch, xx:xx + patch])
                counts[..., z:z + patch, y:y + patch, xx:xx + patch] += 1
    return (logits / counts).argmax(1)[0, :D, :H, :W].cpu()


def main():
    args = parser.parse_args()
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda")

    cases = list_cases(args.data)
    rng = np.random.RandomState(1234)
    rng.shuffle(cases)
    n_val = int(len(cases) * args.val_fraction)
    val_cases, train_cases = cases[:n_val], cases[n_val:]
    my_train = train_cases[hvd.rank()::hvd.size()]
    my_val = val_cases[hvd.rank()::hvd.size()]
    loader = DataLoader(PatchDataset(args.data, my_train, args.patches_per_epoch), batch_size=args.batch_size,
                        shuffle=True, num_workers=4, drop_last=True)

    model = UNet3D(n_classes=args.n_classes).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size(), weight_decay=1e-5)
    scheduler = torch.optim.lr_scheduler.PolynomialLR(optimizer, total_iters=args.epochs, power=0.9)

    start_epoch = 0
    resume_path = find_latest(args.ckpt_dir) if args.resume == "auto" else args.resume
    if hvd.rank() == 0 and resume_path:
        state = torch.load(resume_path, map_location=device)
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        scheduler.load_state_dict(state["scheduler"])
        start_epoch = state["epoch"] + 1
        print(f"resumed from {resume_path} at epoch {start_epoch}")
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0)
    if start_epoch > 0 and hvd.rank() != 0:
        for _ in range(start_epoch):
            scheduler.step()

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    for epoch in range(start_epoch, args.epochs):
        model.train()
        epoch_loss = torch.zeros(2, dtype=torch.float64)
        for img, lab in loader:
            img, lab = img.to(device), lab.to(device)
            optimizer.zero_grad()
            loss = dice_ce_loss(model(img), lab)
            loss.backward()
            optimizer.step()
            epoch_loss += torch.tensor([loss.item(), 1.0], dtype=torch.float64)
        scheduler.step()
        epoch_loss = hvd.allreduce(epoch_loss, op=hvd.Sum, name="train_loss")
        if hvd.rank() == 0:
            print(f"epoch {epoch} loss {(epoch_loss[0] / epoch_loss[1]).item():.4f}", flush=True)

        if (epoch + 1) % args.val_every == 0:
            model.eval()
            dice_sum = torch.zeros(args.n_classes - 1, dtype=torch.float64)
            for case in my_val:
                img, lab = load_case(args.data, case)
                pred = sliding_window_predict(model, img, device)
                dice_sum += torch.tensor(dice_per_class(pred, torch.from_numpy(lab), args.n_classes),
                                         dtype=torch.float64)
            totals = hvd.allreduce(torch.cat([dice_sum, torch.tensor([float(len(my_val))], dtype=torch.float64)]),
                                   op=hvd.Sum, name="val_dice")
            mean_dice = totals[:-1] / totals[-1]
            if hvd.rank() == 0:
                print(f"epoch {epoch} val dice liver {mean_dice[0]:.4f} tumour {mean_dice[1]:.4f}", flush=True)

        if hvd.local_rank() == 0:
            save_checkpoint(args.ckpt_dir, epoch, model, optimizer, scheduler)


if __name__ == "__main__":
    main()
