#!/usr/bin/env python
# ResNet-50 on ImageNet with Horovod, for the PACE cluster (4 nodes x 4 V100).
#
#   #SBATCH --nodes=4 --ntasks-per-node=4 --gres=gpu:4
#   srun python train.py --train-dir $IMAGENET/train --val-dir $IMAGENET/val
import argparse
import math
import os
import time

import torch
import torch.backends.cudnn as cudnn
import torch.nn.functional as F
import torch.optim as optim
import torch.utils.data.distributed
from torchvision import datasets, models, transforms

import horovod.torch as hvd

parser = argparse.ArgumentParser(description="PyTorch ImageNet ResNet-50 (Horovod)")
parser.add_argument("--train-dir", default=os.path.expanduser("~/imagenet/train"))
parser.add_argument("--val-dir", default=os.path.expanduser("~/imagenet/validation"))
parser.add_argument("--log-dir", default="./logs")
parser.add_argument("--checkpoint-format", default="./checkpoint-{epoch}.pth.tar")
parser.add_argument("--fp16-allreduce", action="store_true", default=False)
parser.add_argument("--batch-size", type=int, default=32)
parser.add_argument("--val-batch-size", type=int, default=32)
parser.add_argument("--epochs", type=int, default=90)
parser.add_argument("--base-lr", type=float, default=0.0125)
parser.add_argument("--warmup-epochs", type=float, default=5)
parser.add_argument("--momentum", type=float, default=0.9)
parser.add_argument("--wd", type=float, default=0.00005)
parser.add_argument("--label-smoothing", type=float, default=0.1)
parser.add_argument("--seed", type=int, default=42)
parser.add_argument("--workers", type=int, default=6)


def accuracy(output, target):
    pred = output.max(1, keepdim=True)[1]
    return pred.eq(target.view_as(pred)).float().mean()


class Metric:
    def __init__(self, name):
        self.name = name
        self.sum = torch.tensor(0.0)
        self.n = torch.tensor(0.0)

    def update(self, val):
        self.sum += hvd.allreduce(val.detach().cpu(), name=self.name)
        self.n += 1

    @property
    def avg(self):
        return self.sum / self.n


def adjust_learning_rate(optimizer, epoch, batch_idx, steps_per_epoch, args):
    if epoch < args.warmup_epochs:
        e = epoch + float(batch_idx + 1) / steps_per_epoch
        adj = 1.0 / hvd.size() * (e * (hvd.size() - 1) / args.warmup_epochs + 1)
    elif epoch < 30:
        adj = 1.0
    elif epoch < 60:
        adj = 1e-1
    elif epoch < 80:
        adj = 1e-2
    else:
        adj = 1e-3
    for group in optimizer.param_groups:
        group["lr"] = args.base_lr * hvd.size() * args.batches_per_allreduce * adj


def main():
    args = parser.parse_args()
    args.batches_per_allreduce = 1

    hvd.init()
    torch.manual_seed(args.seed + hvd.rank())
    torch.cuda.set_device(hvd.rank())
    torch.cuda.manual_seed(args.seed + hvd.rank())
    cudnn.benchmark = True
    verbose = hvd.rank() == 0

    # resume from the latest checkpoint on this file system, if any
    resume_from_epoch = 0
    for try_epoch in range(args.epochs, 0, -1):
        if os.path.exists(args.checkpoint_format.format(epoch=try_epoch)):
            resume_from_epoch = try_epoch
            break

    kwargs = {"num_workers": args.workers, "pin_memory": True}
    normalize = transforms.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
    train_dataset = datasets.ImageFolder(args.train_dir, transform=transforms.Compose([
        transforms.RandomResizedCrop(224), transforms.RandomHorizontalFlip(), transforms.ToTensor(), normalize]))
    train_sampler = torch.utils.data.distributed.DistributedSampler(
        train_dataset, num_replicas=hvd.size(), rank=hvd.rank())
    train_loader = torch.utils.data.DataLoader(train_dataset, batch_size=args.batch_size,
                                               sampler=train_sampler, **kwargs)
    val_dataset = datasets.ImageFolder(args.val_dir, transform=transforms.Compose([
        transforms.Resize(256), transforms.CenterCrop(224), transforms.ToTensor(), normalize]))
    val_sampler = torch.utils.data.distributed.DistributedSampler(
        val_dataset, num_replicas=hvd.size(), rank=hvd.rank())
    val_loader = torch.utils.data.DataLoader(val_dataset, batch_size=args.val_batch_size,
                                             sampler=val_sampler, **kwargs)

    model = models.resnet50().cuda()
    optimizer = optim.SGD(model.parameters(), lr=args.base_lr * hvd.size(),
                          momentum=args.momentum, weight_decay=args.wd, nesterov=True)
    compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression)

    if resume_from_epoch > 0 and hvd.rank() == 0:
        ckpt = torch.load(args.checkpoint_format.format(epoch=resume_from_epoch), map_location="cpu")
        model.load_state_dict(ckpt["model"])
        optimizer.load_state_dict(ckpt["optimizer"])
        print(f"resumed at epoch {resume_from_epoch}")

    steps_per_epoch = len(train_loader)
    for epoch in range(resume_from_epoch, args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        train_loss, train_acc = Metric("train_loss"), Metric("train_acc")
        t0 = time.time()
        for batch_idx, (data, target) in enumerate(train_loader):
            adjust_learning_rate(optimizer, epoch, batch_idx, steps_per_epoch, args)
            data, target = data.cuda(non_blocking=True), target.cuda(non_blocking=True)
            optimizer.zero_grad()
            output = model(data)
            loss = F.cross_entropy(output, target, label_smoothing=args.label_smoothing)
            loss.backward()
            optimizer.step()
            train_loss.update(loss)
            train_acc.update(accuracy(output, target))
            if verbose and batch_idx % 100 == 0:
                print(f"epoch {epoch} [{batch_idx}/{steps_per_epoch}] loss {train_loss.avg.item():.3f} "
                      f"acc {100 * train_acc.avg.item():.2f}% {time.time() - t0:.0f}s", flush=True)

        model.eval()
        val_loss, val_acc = Metric("val_loss"), Metric("val_acc")
        with torch.no_grad():
            for data, target in val_loader:
                data, target = data.cuda(), target.cuda()
                output = model(data)
                val_loss.update(F.cross_entropy(output, target))
                val_acc.update(accuracy(output, target))
        if verbose:
            print(f"epoch {epoch} val loss {val_loss.avg.item():.4f} top-1 {100 * val_acc.avg.item():.2f}%")
            torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict()},
                       args.checkpoint_format.format(epoch=epoch + 1))


if __name__ == "__main__":
    main()
