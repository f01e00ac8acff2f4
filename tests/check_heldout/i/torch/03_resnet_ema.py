#!/usr/bin/env python
"""ResNet-50 on an ImageFolder dataset with label smoothing and an EMA of the weights.

    mpirun -np 16 -npernode 4 python 03_resnet_ema.py /data/plants --epochs 90
"""
import argparse
import copy
import os

import torch
import torch.nn as nn
import torchvision
import torchvision.transforms as T
from torch.utils.tensorboard import SummaryWriter
import horovod.torch as hvd


class ModelEMA:
    """Exponential moving average of the model weights (kept on the same device)."""

    def __init__(self, model, decay=0.9998):
        self.ema = copy.deepcopy(model).eval()
        self.decay = decay
        for p in self.ema.parameters():
            p.requires_grad_(False)

    @torch.no_grad()
    def update(self, model):
        msd = model.state_dict()
        for k, v in self.ema.state_dict().items():
            if v.dtype.is_floating_point:
                v.mul_(self.decay).add_(msd[k].detach(), alpha=1 - self.decay)
            else:
                v.copy_(msd[k])


class Trainer:
    def __init__(self, args):
        self.args = args
        torch.cuda.set_device(hvd.rank())
        self.device = torch.device("cuda")

        normalize = T.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
        train_tf = T.Compose([T.RandomResizedCrop(224), T.RandomHorizontalFlip(), T.ToTensor(), normalize])
        val_tf = T.Compose([T.Resize(256), T.CenterCrop(224), T.ToTensor(), normalize])
        self.train_ds = torchvision.datasets.ImageFolder(os.path.join(args.data, "train"), train_tf)
        self.val_ds = torchvision.datasets.ImageFolder(os.path.join(args.data, "val"), val_tf)

        self.train_sampler = torch.utils.data.distributed.DistributedSampler(
            self.train_ds, num_replicas=hvd.size(), rank=hvd.rank())
        self.val_sampler = torch.utils.data.distributed.DistributedSampler(
            self.val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
        self.train_loader = torch.utils.data.DataLoader(
            self.train_ds, batch_size=args.batch_size, sampler=self.train_sampler,
            num_workers=args.workers, pin_memory=True, drop_last=True)
        self.val_loader = torch.utils.data.DataLoader(
            self.val_ds, batch_size=args.batch_size, sampler=self.val_sampler,
            num_workers=args.workers, pin_memory=True)

        self.model = torchvision.models.resnet50(num_classes=len(self.train_ds.classes)).to(self.device)
        self.criterion = nn.CrossEntropyLoss(label_smoothing=args.smoothing)

        # linear scaling rule
        scaled_lr = args.lr * hvd.local_size()
        opt = torch.optim.SGD(self.model.parameters(), lr=scaled_lr, momentum=0.9,
                              weight_decay=args.wd, nesterov=True)
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root_rank=0)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters())
        self.scheduler = torch.optim.lr_scheduler.MultiStepLR(self.optimizer, milestones=[30, 60, 80], gamma=0.1)

        self.ema = ModelEMA(self.model, decay=args.ema_decay)
        self.writer = SummaryWriter(args.logdir) if hvd.rank() == 0 else None

    def train_epoch(self, epoch):
        self.model.train()
        self.train_sampler.set_epoch(epoch)
        for i, (images, target) in enumerate(self.train_loader):
            images = images.cuda(non_blocking=True)
            target = target.cuda(non_blocking=True)
            loss = self.criterion(self.model(images), target)
            self.optimizer.zero_grad()
            loss.backward()
            self.optimizer.step()
            self.ema.update(self.model)
            if i % 50 == 0:
                avg = hvd.allreduce(loss.detach(), name="train_loss").item()
                if self.writer is not None:
                    it = epoch * len(self.train_loader) + i
                    self.writer.add_scalar("train/loss", avg, it)

    @torch.no_grad()
    def validate(self, model):
        model.eval()
        stats = torch.zeros(3, device=self.device)  # loss_sum, correct, count
        for images, target in self.val_loader:
            images, target = images.cuda(), target.cuda()
            out = model(images)
            stats[0] += self.criterion(out, target) * target.size(0)
            stats[1] += (out.argmax(1) == target).sum()
            stats[2] += target.size(0)
        stats = hvd.allreduce(stats, op=hvd.Sum, name="val_stats")
        return (stats[0] / stats[2]).item(), (stats[1] / stats[2]).item()

    def save(self, epoch, best):
        state = {"epoch": epoch, "model": self.model.state_dict(), "ema": self.ema.ema.state_dict(),
                 "optimizer": self.optimizer.state_dict()}
        torch.save(state, os.path.join(self.args.logdir, "last.pth"))
        if best:
            torch.save(self.ema.ema.state_dict(), os.path.join(self.args.logdir, "best_ema.pth"))

    def fit(self):
        best = 0.0
        for epoch in range(self.args.epochs):
            self.train_epoch(epoch)
            self.scheduler.step()
            val_loss, val_acc = self.validate(self.model)
            ema_loss, ema_acc = self.validate(self.ema.ema)
            if hvd.rank() == 0:
                print(f"[{epoch}] val loss {val_loss:.3f} acc {val_acc:.4f} | "
                      f"ema loss {ema_loss:.3f} acc {ema_acc:.4f}")
                self.writer.add_scalar("val/acc", val_acc, epoch)
                self.writer.add_scalar("val/ema_acc", ema_acc, epoch)
                self.save(epoch, ema_acc > best)
                best = max(best, ema_acc)


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("data")
    ap.add_argument("--epochs", type=int, default=90)
    ap.add_argument("--batch-size", type=int, default=64)
    ap.add_argument("--lr", type=float, default=0.0125)
    ap.add_argument("--wd", type=float, default=5e-5)
    ap.add_argument("--smoothing", type=float, default=0.1)
    ap.add_argument("--ema-decay", type=float, default=0.9998)
    ap.add_argument("--workers", type=int, default=6)
    ap.add_argument("--logdir", default="runs/resnet50_ema")
    return ap.parse_args()


if __name__ == "__main__":
    hvd.init()
    args = parse()
    if hvd.rank() == 0:
        os.makedirs(args.logdir, exist_ok=True)
    Trainer(args).fit()
