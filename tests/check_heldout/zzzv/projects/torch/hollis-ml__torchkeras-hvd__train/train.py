#!/usr/bin/env python
# keras-style training of a small convnet with horovod
#   horovodrun -np 4 python train.py --data-dir /data/cifar_pt --epochs 30
import os
import sys

import torch
import torch.nn as nn
import horovod.torch as hvd

from tkh import options, dist, data, ckpt
from tkh.trainer import Trainer, WarmupCosine


def build_model(num_classes):
    return nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(64, num_classes),
    )


def main(argv=None):
    args = options.parse(argv)
    use_cuda = dist.setup(not args.no_cuda)
    torch.manual_seed(args.seed)
    device = "cuda" if use_cuda else "cpu"

    train_loader, val_loader, train_sampler = data.make_loaders(args, hvd.rank(), hvd.size())

    model = build_model(args.num_classes).to(device)
    # linear scaling rule: the global batch is batch_size * size
    peak_lr = args.lr * hvd.size()
    optimizer = torch.optim.SGD(model.parameters(), lr=peak_lr, momentum=args.momentum, weight_decay=args.wd)

    last = os.path.join(args.save_dir, "last.pt")
    start_epoch = ckpt.load_checkpoint(last, model, optimizer)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression)

    steps_per_epoch = len(train_loader)
    schedule = WarmupCosine(peak_lr, args.warmup_epochs * steps_per_epoch, args.epochs * steps_per_epoch)
    trainer = Trainer(model, optimizer, schedule, device=device)
    trainer.global_step = start_epoch * steps_per_epoch

    history = []
    for epoch in range(start_epoch, args.epochs):
        train_sampler.set_epoch(epoch)
        logs = trainer.fit_epoch(epoch, train_loader, val_loader)
        history.append(logs)
        ckpt.save_checkpoint(last, model, optimizer, epoch)

    if dist.is_master():
        best = max(history, key=lambda l: l["val_acc"]) if history else None
        print("best:", best)
    return history


if __name__ == "__main__":
    sys.exit(0 if main() is not None else 1)
