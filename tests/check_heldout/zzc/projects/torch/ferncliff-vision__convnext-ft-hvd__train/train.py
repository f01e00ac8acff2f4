#!/usr/bin/env python
"""Fine-tune a pretrained ConvNeXt-style backbone on a small image dataset with Horovod.

    horovodrun -np 8 -H node1:4,node2:4 python train.py --data /data/flowers102 \
        --pretrained weights/convnext_t_in1k.pth
"""
import argparse
import logging
import os

import torch
import horovod.torch as hvd

from ftlib.backbone import build_model, load_pretrained
from ftlib.data import build_loaders
from ftlib.engine import Trainer
from ftlib.optim import discriminative_param_groups

log = logging.getLogger("ft")


def parse_args():
    p = argparse.ArgumentParser(description="ConvNeXt fine-tuning (Horovod)")
    p.add_argument("--data", required=True, help="ImageFolder root with train/ and val/")
    p.add_argument("--pretrained", default="weights/convnext_t_in1k.pth")
    p.add_argument("--num-classes", type=int, default=102)
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=32, help="batch size per worker")
    p.add_argument("--lr", type=float, default=1e-3, help="head learning rate for a single worker")
    p.add_argument("--backbone-lr-mult", type=float, default=0.1)
    p.add_argument("--weight-decay", type=float, default=0.05)
    p.add_argument("--no-freeze-stem", dest="freeze_stem", action="store_false")
    p.add_argument("--patience", type=int, default=5)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--out", default="runs/convnext_ft")
    p.add_argument("--resume", default="")
    return p.parse_args()


def main():
    args = parse_args()
    hvd.init()
    torch.manual_seed(1234)

    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s [%(name)s] %(message)s")
    log.info("world size %d, per-worker batch %d", hvd.size(), args.batch_size)

    model = build_model(args.num_classes)
    load_pretrained(model.backbone, args.pretrained)
    if args.freeze_stem:
        model.backbone.stem.requires_grad_(False)
    model.to(device)

    train_loader, val_loader, train_sampler = build_loaders(
        args.data, args.batch_size, args.workers, hvd.size(), hvd.rank())

    groups = discriminative_param_groups(model, args.lr, args.backbone_lr_mult, args.weight_decay)
    optimizer = torch.optim.AdamW(groups)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    start_epoch = 0
    if args.resume and os.path.isfile(args.resume):
        ckpt = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        start_epoch = ckpt["epoch"] + 1
        log.info("resumed from %s at epoch %d", args.resume, start_epoch)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    trainer = Trainer(model, optimizer, scheduler, train_loader, val_loader, train_sampler,
                      device=device, out_dir=args.out, patience=args.patience)
    best = trainer.fit(start_epoch, args.epochs)
    log.info("done, best val acc %.4f", best)


if __name__ == "__main__":
    main()
