"""SimCLR pre-training on CIFAR-10 with Horovod.

    horovodrun -np 8 -H node1:4,node2:4 python main_pretrain.py --data /datasets/cifar10
"""
import argparse
import os
import time

import torch
import horovod.torch as hvd

from simclr.data import build_pretrain_loader
from simclr.loss import NTXentLoss
from simclr.misc import AverageMeter, log_rank0, metric_average, save_checkpoint
from simclr.model import SimCLR


def get_args():
    p = argparse.ArgumentParser(description="SimCLR pre-training (horovod)")
    p.add_argument("--data", default="./data")
    p.add_argument("--arch", default="resnet18")
    p.add_argument("--epochs", type=int, default=200)
    p.add_argument("--batch-size", type=int, default=256, help="images per GPU")
    p.add_argument("--lr", type=float, default=0.3, help="base lr for a batch of 256")
    p.add_argument("--wd", type=float, default=1e-6)
    p.add_argument("--temperature", type=float, default=0.5)
    p.add_argument("--proj-dim", type=int, default=128)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--out", default="./runs/simclr")
    p.add_argument("--resume", default="")
    p.add_argument("--fp16-allreduce", action="store_true")
    return p.parse_args()


def train_one_epoch(model, loader, criterion, optimizer, device, epoch, print_freq=50):
    model.train()
    meter = AverageMeter()
    t0 = time.time()
    for i, ((x1, x2), _) in enumerate(loader):
        x1 = x1.to(device, non_blocking=True)
        x2 = x2.to(device, non_blocking=True)
        loss = criterion(model(x1), model(x2))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        meter.update(loss.item(), x1.size(0))
        if i % print_freq == 0:
            log_rank0(f"[{epoch}][{i}/{len(loader)}] loss {meter.avg:.4f} ({time.time() - t0:.1f}s)")
    return meter.avg


def main():
    args = get_args()
    hvd.init()
    torch.manual_seed(42)

    use_cuda = torch.cuda.is_available()
    if use_cuda:
        torch.cuda.set_device(hvd.local_rank())
        torch.backends.cudnn.benchmark = True
    device = torch.device("cuda" if use_cuda else "cpu")

    loader, sampler = build_pretrain_loader(args.data, args.batch_size, args.workers)

    model = SimCLR(args.arch, proj_dim=args.proj_dim).to(device)
    # linear scaling rule from the SimCLR paper: lr = 0.3 x BatchSize / 256
    lr = args.lr * args.batch_size / 256
    optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=args.wd)

    start_epoch = 0
    if args.resume and os.path.isfile(args.resume):
        ckpt = torch.load(args.resume, map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        start_epoch = ckpt["epoch"] + 1
        log_rank0(f"resumed from {args.resume} (epoch {start_epoch})")

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression)
    scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs,
                                                           last_epoch=start_epoch - 1)
    criterion = NTXentLoss(args.temperature)

    for epoch in range(start_epoch, args.epochs):
        sampler.set_epoch(epoch)
        train_loss = train_one_epoch(model, loader, criterion, optimizer, device, epoch)
        scheduler.step()
        train_loss = metric_average(train_loss, "avg_loss")
        log_rank0(f"epoch {epoch}: loss {train_loss:.4f} lr {scheduler.get_last_lr()[0]:.5f}")
        save_checkpoint({
            "epoch": epoch,
            "arch": args.arch,
            "model": model.state_dict(),
            "optimizer": optimizer.state_dict(),
        }, args.out, epoch)


if __name__ == "__main__":
    main()
