#!/usr/bin/env python
"""Train SlowFast-lite on (synthetic) Kinetics with Horovod.

    horovodrun -np 8 python train.py --epochs 40 --batch-size 8
"""
import argparse
import math

import torch
import horovod.torch as hvd

from slowfast.data import SyntheticKinetics, train_loader, eval_video_ids
from slowfast.dist import setup_horovod, is_master
from slowfast.engine import train_one_epoch, evaluate_multiclip
from slowfast.models import SlowFastLite
from slowfast import checkpoint


def parse_args():
    p = argparse.ArgumentParser(description="SlowFast-lite Kinetics training")
    p.add_argument("--num-videos", type=int, default=512)
    p.add_argument("--num-classes", type=int, default=20)
    p.add_argument("--epochs", type=int, default=40)
    p.add_argument("--batch-size", type=int, default=8, help="clips per GPU")
    p.add_argument("--base-lr", type=float, default=0.0125, help="lr for one GPU")
    p.add_argument("--warmup-epochs", type=float, default=2.0)
    p.add_argument("--milestones", type=int, nargs="+", default=[25, 35])
    p.add_argument("--test-clips", type=int, default=5)
    p.add_argument("--ckpt-dir", default="checkpoints/slowfast_lite")
    p.add_argument("--workers", type=int, default=2)
    return p.parse_args()


def build_schedule(optimizer, steps_per_epoch, warmup_epochs, milestones):
    warmup_steps = int(warmup_epochs * steps_per_epoch)

    def factor(step):
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        epoch = step // steps_per_epoch
        return 0.1 ** sum(epoch >= m for m in milestones)

    return torch.optim.lr_scheduler.LambdaLR(optimizer, factor)


def main():
    args = parse_args()
    device = setup_horovod()
    torch.manual_seed(1234)

    train_set = SyntheticKinetics(args.num_videos, args.num_classes, seed=1)
    val_set = SyntheticKinetics(args.num_videos // 4, args.num_classes, seed=2)
    loader, sampler = train_loader(train_set, args.batch_size, hvd.rank(), hvd.size(), args.workers)

    model = SlowFastLite(args.num_classes).to(device)
    # linear scaling rule: the global batch grows with the number of workers
    lr = args.base_lr * hvd.size()
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9,
                                weight_decay=1e-4, nesterov=True)

    start_epoch = checkpoint.maybe_resume(args.ckpt_dir, model, optimizer)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)
    scheduler = build_schedule(optimizer, len(loader), args.warmup_epochs, args.milestones)
    for _ in range(start_epoch * len(loader)):
        scheduler.step()

    val_ids = eval_video_ids(len(val_set), hvd.rank(), hvd.size())
    best = -math.inf
    for epoch in range(start_epoch, args.epochs):
        sampler.set_epoch(epoch)
        train_one_epoch(model, loader, optimizer, scheduler, device, epoch)
        acc = evaluate_multiclip(model, val_set, val_ids, args.test_clips, device)
        checkpoint.save(args.ckpt_dir, model, optimizer, epoch)
        if is_master():
            best = max(best, acc)
            print(f"epoch {epoch}: video acc@1 {acc:.4f} (best {best:.4f})")


if __name__ == "__main__":
    main()
