#!/usr/bin/env python
"""Train a PointNet jet tagger on JetClass npz shards with Horovod.

    srun -n 8 python train.py --data /scratch/jetclass --epochs 30
"""
import argparse
import os

import torch
import torch.nn as nn
import horovod.torch as hvd

from jetnet.data import make_loader
from jetnet.model import PointNetTagger
from jetnet.metrics import evaluate
from jetnet.utils import get_logger, save_checkpoint, Timer


def get_args():
    p = argparse.ArgumentParser(description="JetClass PointNet tagger (horovod)")
    p.add_argument("--data", default=os.environ.get("JETCLASS_DIR", "./data/jetclass"))
    p.add_argument("--out", default="./runs/pointnet")
    p.add_argument("--epochs", type=int, default=30)
    p.add_argument("--batch-size", type=int, default=256, help="jets per GPU")
    p.add_argument("--lr", type=float, default=1e-3, help="single-GPU learning rate")
    p.add_argument("--wd", type=float, default=1e-4)
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--resume", default="")
    return p.parse_args()


def main():
    args = get_args()
    hvd.init()
    log = get_logger(rank=hvd.rank())

    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if use_cuda else "cpu")
    torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))

    train_loader, train_sampler = make_loader(args.data, "train", args.batch_size, args.workers)
    val_loader, _ = make_loader(args.data, "val", args.batch_size, args.workers, shuffle=False)

    model = PointNetTagger(in_features=train_loader.dataset.x.shape[-1]).to(device)
    lr = args.lr * hvd.size()
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=args.wd)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

    start_epoch, best_auc = 0, 0.0
    if args.resume and os.path.isfile(args.resume):
        ckpt = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        scheduler.load_state_dict(ckpt["scheduler"])
        start_epoch, best_auc = ckpt["epoch"] + 1, ckpt["best_auc"]

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression)
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp and use_cuda)
    loss_fn = nn.BCEWithLogitsLoss(reduction="none")

    for epoch in range(start_epoch, args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        timer = Timer()
        for step, (x, y, w) in enumerate(train_loader):
            x, y, w = x.to(device, non_blocking=True), y.to(device), w.to(device)
            optimizer.zero_grad()
            with torch.autocast(device_type=device.type, enabled=args.amp and use_cuda):
                loss = (loss_fn(model(x), y) * w).sum() / w.sum()
            scaler.scale(loss).backward()
            scaler.step(optimizer)
            scaler.update()
            if step % 100 == 0:
                log.info(f"epoch {epoch} step {step}/{len(train_loader)} loss {loss.item():.4f}")
        scheduler.step()

        metrics = evaluate(model, val_loader, device, loss_fn)
        if hvd.rank() == 0:
            log.info(f"epoch {epoch} ({timer.lap():.0f}s) val loss {metrics['loss']:.4f} "
                     f"auc {metrics['auc']:.4f} rej@50 {metrics['rej50']:.1f}")
            if metrics["auc"] > best_auc:
                best_auc = metrics["auc"]
                save_checkpoint(os.path.join(args.out, "best.pt"), model, optimizer, scheduler, epoch, best_auc)
            save_checkpoint(os.path.join(args.out, "last.pt"), model, optimizer, scheduler, epoch, best_auc)


if __name__ == "__main__":
    main()
