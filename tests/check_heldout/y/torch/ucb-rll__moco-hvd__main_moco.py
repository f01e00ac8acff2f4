#!/usr/bin/env python
# MoCo v2 pre-training, ported from the official DDP main_moco.py to Horovod
# so that it runs on the department's SLURM partition (no NCCL process group needed).
import argparse
import math
import os
import time

import torch
import torch.nn as nn
import horovod.torch as hvd

import moco.builder
import moco.loader
from moco.utils import AverageMeter, adjust_learning_rate, save_checkpoint

parser = argparse.ArgumentParser(description="MoCo v2 ImageNet pre-training (Horovod)")
parser.add_argument("data", metavar="DIR")
parser.add_argument("--epochs", default=200, type=int)
parser.add_argument("-b", "--batch-size", default=32, type=int, help="mini-batch size per GPU")
parser.add_argument("--lr", "--learning-rate", default=0.03, type=float, help="lr for a batch of 256")
parser.add_argument("--momentum", default=0.9, type=float)
parser.add_argument("--wd", "--weight-decay", default=1e-4, type=float)
parser.add_argument("--moco-dim", default=128, type=int)
parser.add_argument("--moco-k", default=65536, type=int, help="queue size")
parser.add_argument("--moco-m", default=0.999, type=float)
parser.add_argument("--moco-t", default=0.2, type=float)
parser.add_argument("--cos", action="store_true", help="cosine lr schedule")
parser.add_argument("-j", "--workers", default=8, type=int)
parser.add_argument("--print-freq", default=50, type=int)
parser.add_argument("--save-dir", default="checkpoints")


def main():
    args = parser.parse_args()
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    torch.backends.cudnn.benchmark = True

    # linear scaling rule (Goyal et al.): lr = base_lr * batch / 256
    args.lr = args.lr * args.batch_size / 256

    model = moco.builder.MoCo(dim=args.moco_dim, K=args.moco_k, m=args.moco_m, T=args.moco_t).cuda()
    criterion = nn.CrossEntropyLoss().cuda()

    optimizer = torch.optim.SGD(model.encoder_q.parameters(), args.lr,
                                momentum=args.momentum, weight_decay=args.wd)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.encoder_q.named_parameters())

    # everybody starts from rank 0's weights
    hvd.broadcast_parameters(model.encoder_q.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    train_dataset = moco.loader.build_dataset(os.path.join(args.data, "train"))
    train_sampler = torch.utils.data.distributed.DistributedSampler(
        train_dataset, num_replicas=hvd.size(), rank=hvd.rank())
    train_loader = torch.utils.data.DataLoader(
        train_dataset, batch_size=args.batch_size, sampler=train_sampler,
        num_workers=args.workers, pin_memory=True, drop_last=True)

    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        adjust_learning_rate(optimizer, epoch, args)
        loss = train(train_loader, model, criterion, optimizer, epoch, args)
        if hvd.rank() == 0:
            print(f"==> epoch {epoch} mean loss {loss:.4f}")
            save_checkpoint({"epoch": epoch + 1, "state_dict": model.state_dict(),
                             "optimizer": optimizer.state_dict()},
                            os.path.join(args.save_dir, "checkpoint_{:04d}.pth.tar".format(epoch)))


def train(train_loader, model, criterion, optimizer, epoch, args):
    batch_time = AverageMeter("Time")
    losses = AverageMeter("Loss")
    model.train()
    end = time.time()
    for i, (images, _) in enumerate(train_loader):
        images[0] = images[0].cuda(non_blocking=True)
        images[1] = images[1].cuda(non_blocking=True)
        output, target = model(im_q=images[0], im_k=images[1])
        loss = criterion(output, target)
        losses.update(loss.item(), images[0].size(0))

        optimizer.zero_grad()
        loss.backward()
        optimizer.step()

        batch_time.update(time.time() - end)
        end = time.time()
        if i % args.print_freq == 0 and hvd.rank() == 0:
            print(f"Epoch [{epoch}][{i}/{len(train_loader)}] {batch_time} {losses}")
    # same number of batches on every rank (drop_last), so averaging the rank means is fine
    return hvd.allreduce(torch.tensor(losses.avg), name="epoch_loss").item()


if __name__ == "__main__":
    main()
