#!/usr/bin/env python
"""CIFAR-10 ResNet-18 with Horovod + AMP, wrapped in a Trainer class.

Launch: horovodrun -np 8 -H node1:4,node2:4 python 01_cifar_resnet_trainer_amp.py --epochs 90
"""
import argparse
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data
import torchvision
import torchvision.transforms as T
import horovod.torch as hvd
from torch.utils.tensorboard import SummaryWriter


def get_args():
    p = argparse.ArgumentParser(description="cifar10 horovod trainer")
    p.add_argument("--data-dir", default=os.path.expanduser("~/scratch/cifar10"))
    p.add_argument("--batch-size", type=int, default=128, help="per-GPU batch size")
    p.add_argument("--epochs", type=int, default=90)
    p.add_argument("--base-lr", type=float, default=0.05)
    p.add_argument("--momentum", type=float, default=0.9)
    p.add_argument("--wd", type=float, default=5e-4)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--ckpt-dir", default="./checkpoints")
    p.add_argument("--logdir", default="./runs/cifar_hvd")
    return p.parse_args()


def build_loader(dataset, batch_size, workers, train):
    sampler = torch.utils.data.distributed.DistributedSampler(
        dataset, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=train)
    loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, sampler=sampler,
                                         num_workers=workers, pin_memory=True, drop_last=train)
    return loader, sampler


class Average(object):
    """Running average that is made global with an allreduce (cf. horovod imagenet example)."""

    def __init__(self, name):
        self.name = name
        self.sum = torch.tensor(0.)
        self.n = torch.tensor(0.)

    def update(self, val):
        self.sum += hvd.allreduce(val.detach().cpu(), name=self.name)
        self.n += 1

    @property
    def avg(self):
        return self.sum / self.n


class Trainer(object):
    def __init__(self, args):
        self.args = args
        self.is_main = hvd.rank() == 0
        self.device = torch.device("cuda")
        world = hvd.size()

        normalize = T.Normalize((0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616))
        train_tf = T.Compose([T.RandomCrop(32, padding=4), T.RandomHorizontalFlip(), T.ToTensor(), normalize])
        test_tf = T.Compose([T.ToTensor(), normalize])
        train_set = torchvision.datasets.CIFAR10(args.data_dir, train=True, download=False, transform=train_tf)
        test_set = torchvision.datasets.CIFAR10(args.data_dir, train=False, download=False, transform=test_tf)
        self.train_loader, self.train_sampler = build_loader(train_set, args.batch_size, args.workers, True)
        self.test_loader, _ = build_loader(test_set, 256, args.workers, False)

        self.model = torchvision.models.resnet18(num_classes=10).to(self.device)
        self.criterion = nn.CrossEntropyLoss()
        scaled_lr = args.base_lr * world
        opt = torch.optim.SGD(self.model.parameters(), lr=scaled_lr, momentum=args.momentum,
                              weight_decay=args.wd, nesterov=True)
        self.optimizer = hvd.DistributedOptimizer(opt, named_parameters=self.model.named_parameters(),
                                                  compression=hvd.Compression.fp16)
        self.scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(self.optimizer, T_max=args.epochs)
        self.scaler = torch.cuda.amp.GradScaler(enabled=args.amp)
        self.writer = SummaryWriter(args.logdir) if self.is_main else None
        self._sync()

    def _sync(self):
        hvd.broadcast_parameters(self.model.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(self.optimizer, root_rank=0)

    def train_one_epoch(self, epoch):
        self.model.train()
        self.train_sampler.set_epoch(epoch)
        loss_meter = Average("train_loss")
        for i, (x, y) in enumerate(self.train_loader):
            x, y = x.to(self.device, non_blocking=True), y.to(self.device, non_blocking=True)
            self.optimizer.zero_grad()
            with torch.cuda.amp.autocast(enabled=self.args.amp):
                out = self.model(x)
                loss = self.criterion(out, y)
            self.scaler.scale(loss).backward()
            self.optimizer.synchronize()
            self.scaler.unscale_(self.optimizer)
            torch.nn.utils.clip_grad_norm_(self.model.parameters(), 5.0)
            with self.optimizer.skip_synchronize():
                self.scaler.step(self.optimizer)
            self.scaler.update()
            loss_meter.update(loss)
        self.scheduler.step()
        return loss_meter.avg.item()

    @torch.no_grad()
    def evaluate(self):
        self.model.eval()
        loss_meter, acc_meter = Average("val_loss"), Average("val_acc")
        for x, y in self.test_loader:
            x, y = x.to(self.device), y.to(self.device)
            out = self.model(x)
            loss_meter.update(F.cross_entropy(out, y))
            acc_meter.update((out.argmax(1) == y).float().mean())
        return loss_meter.avg.item(), acc_meter.avg.item()

    def save(self, epoch):
        if not self.is_main:
            return
        os.makedirs(self.args.ckpt_dir, exist_ok=True)
        torch.save({"epoch": epoch, "model": self.model.state_dict(),
                    "optimizer": self.optimizer.state_dict()},
                   os.path.join(self.args.ckpt_dir, "resnet18_cifar_last.pt"))

    def fit(self):
        for epoch in range(self.args.epochs):
            t0 = time.time()
            tr_loss = self.train_one_epoch(epoch)
            val_loss, val_acc = self.evaluate()
            if self.is_main:
                print(f"epoch {epoch:3d} | train {tr_loss:.4f} | val {val_loss:.4f} "
                      f"| acc {100 * val_acc:.2f}% | {time.time() - t0:.1f}s")
                self.writer.add_scalar("loss/train", tr_loss, epoch)
                self.writer.add_scalar("loss/val", val_loss, epoch)
                self.writer.add_scalar("acc/val", val_acc, epoch)
            self.save(epoch)


def main():
    args = get_args()
    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    torch.backends.cudnn.benchmark = True
    Trainer(args).fit()


if __name__ == "__main__":
    main()
