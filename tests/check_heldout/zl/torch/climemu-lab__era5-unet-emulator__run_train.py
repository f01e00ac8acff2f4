#!/usr/bin/env python3
# ERA5 one-step emulator (U-Net on a regular lat/lon grid), multi-GPU with Horovod.
#
#   horovodrun -np 16 python run_train.py --train-years 1979-2015 --val-years 2016-2017 \
#       --data-root /lustre/era5/5.625deg --amp --epochs 50
import argparse
import glob
import math
import os

import numpy as np
import torch
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd

from emulator.data import ERA5Pairs, latitude_weights
from emulator.model import UNet
from emulator.trainer import EmulatorTrainer
from utils.dist import init_distributed, is_main
from utils.logging_utils import get_logger


def year_files(root, span):
    a, b = (int(v) for v in span.split("-"))
    return [f for y in range(a, b + 1) for f in sorted(glob.glob(os.path.join(root, f"{y}*.h5")))]


def build_parser():
    p = argparse.ArgumentParser("era5-emulator")
    p.add_argument("--data-root", default="/lustre/era5/5.625deg")
    p.add_argument("--train-years", default="1979-2015")
    p.add_argument("--val-years", default="2016-2017")
    p.add_argument("--stats", default="stats/mean_std.npz")
    p.add_argument("--lead", type=int, default=6, help="lead time in steps of the stored data")
    p.add_argument("--base-channels", type=int, default=32)
    p.add_argument("--batch-size", type=int, default=8, help="per GPU")
    p.add_argument("--base-lr", type=float, default=2e-4, help="lr for one GPU")
    p.add_argument("--warmup-epochs", type=float, default=2.0)
    p.add_argument("--epochs", type=int, default=50)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--out", default="checkpoints/era5_unet")
    return p


def main():
    args = build_parser().parse_args()
    device = init_distributed()
    log = get_logger("era5", is_main())

    stats = None
    if os.path.exists(args.stats):
        s = np.load(args.stats)
        stats = (s["mean"][:, None, None], s["std"][:, None, None])
    train_ds = ERA5Pairs(year_files(args.data_root, args.train_years), args.lead, stats)
    val_ds = ERA5Pairs(year_files(args.data_root, args.val_years), args.lead, stats)
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    kw = dict(batch_size=args.batch_size, num_workers=args.workers, pin_memory=device.type == "cuda")
    train_loader = DataLoader(train_ds, sampler=train_sampler, drop_last=True, **kw)
    val_loader = DataLoader(val_ds, sampler=val_sampler, **kw)

    x0, _ = train_ds[0]
    model = UNet(x0.shape[0], args.base_channels).to(device)
    peak_lr = args.base_lr * hvd.size()
    optimizer = torch.optim.AdamW(model.parameters(), lr=peak_lr, weight_decay=1e-5)
    optimizer = hvd.DistributedOptimizer(
        optimizer, named_parameters=model.named_parameters(),
        compression=hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none)

    steps_per_epoch = len(train_loader)
    warm, total = args.warmup_epochs * steps_per_epoch, args.epochs * steps_per_epoch

    def lr_lambda(step):
        if step < warm:
            return (step + 1) / warm
        return 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, total - warm)))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)
    trainer = EmulatorTrainer(model, optimizer, scheduler, latitude_weights(x0.shape[1]), device, args.amp)
    ckpt = os.path.join(args.out, "last.pt")
    start = trainer.resume(ckpt)

    log.info("%d ranks, %d train pairs, %d val pairs, peak lr %.2e", hvd.size(), len(train_ds), len(val_ds), peak_lr)
    best = math.inf
    for epoch in range(start, args.epochs):
        train_sampler.set_epoch(epoch)
        tr = trainer.train_epoch(train_loader)
        val_rmse = trainer.validate(val_loader)
        log.info("epoch %03d  train wMSE %.5f  val wRMSE %.5f", epoch, tr, val_rmse)
        trainer.save(ckpt, epoch)
        if val_rmse < best:
            best = val_rmse
            trainer.save(os.path.join(args.out, "best.pt"), epoch)


if __name__ == "__main__":
    main()
