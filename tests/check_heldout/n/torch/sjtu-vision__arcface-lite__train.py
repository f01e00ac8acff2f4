#!/usr/bin/env python
"""ArcFace training on a face list (CASIA-WebFace style) with Horovod.

    horovodrun -np 8 -H node1:4,node2:4 python train.py --data-root /data/casia --train-list lists/train.txt
"""
import argparse
import os
import time

import torch
import torch.nn as nn
import horovod.torch as hvd

from facekit import ArcMarginProduct, build_backbone
from facekit.data import make_loader
from utils.checkpoint import load_checkpoint, save_checkpoint
from utils.logger import AverageMeter, get_logger


def parse_args():
    p = argparse.ArgumentParser(description="ArcFace-lite")
    p.add_argument("--data-root", required=True)
    p.add_argument("--train-list", default="lists/train.txt")
    p.add_argument("--val-list", default="lists/val.txt")
    p.add_argument("--backbone", default="ir18", choices=["ir18", "ir_tiny"])
    p.add_argument("--emb-dim", type=int, default=256)
    p.add_argument("--batch-size", type=int, default=128, help="per GPU")
    p.add_argument("--epochs", type=int, default=24)
    p.add_argument("--lr", type=float, default=0.1)
    p.add_argument("--head-lr-mult", type=float, default=10.0)
    p.add_argument("--milestones", type=int, nargs="+", default=[10, 18, 22])
    p.add_argument("--weight-decay", type=float, default=5e-4)
    p.add_argument("--margin", type=float, default=0.5)
    p.add_argument("--scale", type=float, default=64.0)
    p.add_argument("--out-dir", default="work_dirs/arcface")
    p.add_argument("--resume", default="")
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--log-every", type=int, default=50)
    return p.parse_args()


def evaluate(backbone, head, loader):
    backbone.eval()
    correct = torch.zeros(1).cuda()
    total = torch.zeros(1).cuda()
    with torch.no_grad():
        for img, label in loader:
            img, label = img.cuda(non_blocking=True), label.cuda(non_blocking=True)
            _, cos = head(backbone(img), label)
            correct += (cos.argmax(1) == label).sum()
            total += label.numel()
    correct = hvd.allreduce(correct, name="val_correct", op=hvd.Sum)
    total = hvd.allreduce(total, name="val_total", op=hvd.Sum)
    return (correct / total).item()


def main():
    args = parse_args()
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    torch.backends.cudnn.benchmark = True
    log = get_logger("arcface", hvd.rank())

    train_loader, train_sampler = make_loader(args.data_root, args.train_list, args.batch_size, True,
                                              hvd.size(), hvd.rank(), args.workers)
    val_loader, _ = make_loader(args.data_root, args.val_list, 256, False, hvd.size(), hvd.rank(), args.workers)
    num_classes = train_loader.dataset.num_classes
    log.info("classes=%d train=%d world=%d", num_classes, len(train_loader.dataset), hvd.size())

    backbone = build_backbone(args.backbone, args.emb_dim).cuda()
    head = ArcMarginProduct(args.emb_dim, num_classes, s=args.scale, m=args.margin).cuda()

    lr = args.lr * hvd.size()
    optimizer = torch.optim.SGD([
        {"params": backbone.parameters(), "lr": lr},
        {"params": head.parameters(), "lr": lr * args.head_lr_mult},
    ], momentum=0.9, weight_decay=args.weight_decay)

    start_epoch, best_acc = 0, 0.0
    if args.resume and os.path.isfile(args.resume):
        start_epoch, best_acc = load_checkpoint(args.resume, backbone, head, optimizer)
        log.info("resumed from %s at epoch %d", args.resume, start_epoch)

    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=backbone.named_parameters(),
                                         compression=hvd.Compression.fp16)
    hvd.broadcast_parameters(backbone.state_dict(), root_rank=0)
    hvd.broadcast_parameters(head.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    scheduler = torch.optim.lr_scheduler.MultiStepLR(optimizer, args.milestones, gamma=0.1,
                                                     last_epoch=start_epoch - 1)
    criterion = nn.CrossEntropyLoss()

    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        backbone.train()
        meter = AverageMeter()
        t0 = time.time()
        for it, (img, label) in enumerate(train_loader):
            img, label = img.cuda(non_blocking=True), label.cuda(non_blocking=True)
            logits, _ = head(backbone(img), label)
            loss = criterion(logits, label)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            meter.update(loss.item(), img.size(0))
            if it % args.log_every == 0:
                log.info("ep %d it %d/%d loss %.4f lr %.5f %.1f img/s", epoch, it, len(train_loader),
                         meter.avg, optimizer.param_groups[0]["lr"],
                         (it + 1) * args.batch_size / (time.time() - t0))
        scheduler.step()

        acc = evaluate(backbone, head, val_loader)
        is_best = acc > best_acc
        best_acc = max(acc, best_acc)
        log.info("epoch %d val_acc %.4f best %.4f", epoch, acc, best_acc)
        save_checkpoint({"epoch": epoch + 1, "backbone": backbone.state_dict(), "head": head.state_dict(),
                         "optimizer": optimizer.state_dict(), "best_acc": best_acc},
                        args.out_dir, is_best)

    if hvd.rank() == 0:
        torch.save(backbone.state_dict(), os.path.join(args.out_dir, "backbone_final.pth"))


if __name__ == "__main__":
    main()
