# Small ViT on ImageFolder data (or synthetic images) with per-rank throughput logs.
#   srun -C gpu -N 8 --ntasks-per-node 1 python train.py --global-batch 1024 --accum 2
import argparse
import math

import torch
import torch.nn as nn
import horovod.torch as hvd

from tlog import launch
from tlog.ckpt import restore_and_sync, save_checkpoint
from tlog.data import build_datasets, rank_subset
from tlog.meter import ThroughputLog
from tlog.vit import TinyViT


def get_parser():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="", help="ImageFolder root with train/ and val/; synthetic if empty")
    p.add_argument("--img", type=int, default=64)
    p.add_argument("--global-batch", type=int, default=1024)
    p.add_argument("--accum", type=int, default=1, help="micro-batches per optimizer step")
    p.add_argument("--lr", type=float, default=1e-3, help="lr for the global batch")
    p.add_argument("--warmup-steps", type=int, default=200)
    p.add_argument("--epochs", type=int, default=10)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--ckpt", default="ckpt/vit_last.pt")
    p.add_argument("--logdir", default="logs")
    return p


def lr_at(step, total, base, warmup):
    if step < warmup:
        return base * (step + 1) / warmup
    return 0.5 * base * (1 + math.cos(math.pi * (step - warmup) / max(1, total - warmup)))


def worker(ctx, args):
    micro = args.global_batch // (ctx.size * args.accum)
    train_set, val_set, num_classes = build_datasets(args.data, args.img)
    train_loader = torch.utils.data.DataLoader(
        rank_subset(train_set, ctx.rank, ctx.size), batch_size=micro, shuffle=True,
        drop_last=True, num_workers=args.workers, pin_memory=ctx.cuda)
    val_loader = torch.utils.data.DataLoader(
        rank_subset(val_set, ctx.rank, ctx.size), batch_size=256, num_workers=args.workers)

    model = TinyViT(img=args.img, num_classes=num_classes).to(ctx.device)
    opt = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=0.05)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(),
                                   backward_passes_per_step=args.accum)
    start_epoch = restore_and_sync(model, opt, args.ckpt)

    steps_per_epoch = len(train_loader) // args.accum
    total = steps_per_epoch * args.epochs
    tlog = ThroughputLog(args.logdir, ctx.rank)
    crit = nn.CrossEntropyLoss()

    for epoch in range(start_epoch, args.epochs):
        model.train()
        it = iter(train_loader)
        for s in range(steps_per_epoch):
            step = epoch * steps_per_epoch + s
            for g in opt.param_groups:
                g["lr"] = lr_at(step, total, args.lr, args.warmup_steps)
            tlog.start()
            opt.zero_grad()
            for _ in range(args.accum):
                x, y = next(it)
                x, y = x.to(ctx.device, non_blocking=True), y.to(ctx.device, non_blocking=True)
                loss = crit(model(x), y) / args.accum
                loss.backward()
            opt.step()
            tlog.stop(epoch, s, micro * args.accum)

        model.eval()
        correct = total_seen = 0
        loss_sum = 0.0
        with torch.no_grad():
            for x, y in val_loader:
                out = model(x.to(ctx.device))
                loss_sum += crit(out, y.to(ctx.device)).item() * y.size(0)
                correct += (out.argmax(1).cpu() == y).sum().item()
                total_seen += y.size(0)
        parts = hvd.allgather_object({"c": correct, "n": total_seen, "l": loss_sum})
        n = sum(p["n"] for p in parts)
        rate = tlog.epoch_rate()
        rates = hvd.allgather_object(rate)
        if ctx.rank == 0:
            print(f"epoch {epoch}: val_loss {sum(p['l'] for p in parts) / n:.4f} "
                  f"val_acc {sum(p['c'] for p in parts) / n:.4f} "
                  f"img/s {sum(rates):.0f} (slowest rank {min(rates):.0f})", flush=True)
        save_checkpoint(model, opt, epoch, args.ckpt)
    tlog.close()


if __name__ == "__main__":
    launch.run(worker, get_parser().parse_args())
