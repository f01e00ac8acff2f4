#!/usr/bin/env python
"""ResNet-18 on Imagenette with Horovod + AMP.

Started from the ALCF Polaris "scaling deep learning" hands-on and kept growing.
Launch on Polaris with:
    mpiexec -n $((NNODES*4)) --ppn 4 --cpu-bind depth -d 16 python train.py --data /eagle/.../imagenette2-320
"""
import argparse
import math
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import horovod.torch as hvd

from data import build_loaders
from utils import init_horovod, is_root, AverageMeter, accuracy, save_checkpoint, resume_from


def get_args():
    p = argparse.ArgumentParser(description="imagenette / resnet18 / horovod")
    p.add_argument("--data", default="./imagenette2-320")
    p.add_argument("--epochs", type=int, default=20)
    p.add_argument("--batch-size", type=int, default=64, help="per-GPU batch size")
    p.add_argument("--base-lr", type=float, default=0.0125, help="lr for a single GPU")
    p.add_argument("--warmup-epochs", type=float, default=2.0)
    p.add_argument("--wd", type=float, default=5e-5)
    p.add_argument("--image-size", type=int, default=160)
    p.add_argument("--workers", type=int, default=4)
    p.add_argument("--amp", action="store_true")
    p.add_argument("--fp16-allreduce", action="store_true")
    p.add_argument("--ckpt-dir", default="./checkpoints")
    p.add_argument("--resume", default="")
    p.add_argument("--log-every", type=int, default=20)
    return p.parse_args()


def lr_lambda(warmup_steps, total_steps):
    def f(step):
        if step < warmup_steps:
            return (step + 1) / warmup_steps
        progress = (step - warmup_steps) / max(1, total_steps - warmup_steps)
        return 0.5 * (1.0 + math.cos(math.pi * progress))
    return f


class Trainer:
    def __init__(self, args, ctx):
        self.args, self.ctx = args, ctx
        self.train_loader, self.val_loader, self.train_sampler = build_loaders(
            args.data, args.batch_size, args.image_size, args.workers, ctx.rank, ctx.size)

        self.model = torchvision.models.resnet18(num_classes=10).to(ctx.device)
        # linear scaling rule: the global batch is batch_size * size
        lr = args.base_lr * ctx.size
        opt = torch.optim.SGD(self.model.parameters(), lr=lr, momentum=0.9,
                              weight_decay=args.wd, nesterov=True)
        compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
        self.optimizer = hvd.DistributedOptimizer(
            opt, named_parameters=self.model.named_parameters(), compression=compression)
        self.scaler = torch.cuda.amp.GradScaler(enabled=args.amp and torch.cuda.is_available())

        self.start_epoch = resume_from(args.resume, self.model, self.optimizer, self.scaler)
        steps = len(self.train_loader)
        self.scheduler = torch.optim.lr_scheduler.LambdaLR(
            self.optimizer, lr_lambda(int(args.warmup_epochs * steps), args.epochs * steps))
        for _ in range(self.start_epoch * steps):
            self.scheduler.step()

    def train_epoch(self, epoch):
        self.model.train()
        self.train_sampler.set_epoch(epoch)
        loss_m, acc_m = AverageMeter("train_loss"), AverageMeter("train_acc")
        t0, seen = time.perf_counter(), 0
        for i, (images, target) in enumerate(self.train_loader):
            images = images.to(self.ctx.device, non_blocking=True)
            target = target.to(self.ctx.device, non_blocking=True)
            self.optimizer.zero_grad()
            with torch.autocast(device_type=self.ctx.device.type, enabled=self.scaler.is_enabled()):
                output = self.model(images)
                loss = F.cross_entropy(output, target, label_smoothing=0.1)
            self.scaler.scale(loss).backward()
            # allreduce first, then unscale/step without a second synchronize
            self.optimizer.synchronize()
            self.scaler.unscale_(self.optimizer)
            nn.utils.clip_grad_norm_(self.model.parameters(), 5.0)
            with self.optimizer.skip_synchronize():
                self.scaler.step(self.optimizer)
            self.scaler.update()
            self.scheduler.step()
            loss_m.update(loss.item(), images.size(0))
            acc_m.update(accuracy(output, target), images.size(0))
            seen += images.size(0)
            if i % self.args.log_every == 0:
                ips = seen / (time.perf_counter() - t0)
                print(f"[rank {self.ctx.rank}] epoch {epoch} it {i}/{len(self.train_loader)} "
                      f"loss {loss_m.avg:.4f} {ips:.1f} img/s", flush=True)
        return loss_m.all_reduce(), acc_m.all_reduce()

    @torch.no_grad()
    def validate(self):
        self.model.eval()
        loss_m, acc_m = AverageMeter("val_loss"), AverageMeter("val_acc")
        for images, target in self.val_loader:
            images, target = images.to(self.ctx.device), target.to(self.ctx.device)
            output = self.model(images)
            loss_m.update(F.cross_entropy(output, target).item(), images.size(0))
            acc_m.update(accuracy(output, target), images.size(0))
        return loss_m.all_reduce(), acc_m.all_reduce()

    def fit(self):
        for epoch in range(self.start_epoch, self.args.epochs):
            tl, ta = self.train_epoch(epoch)
            vl, va = self.validate()
            if is_root():
                print(f"epoch {epoch}: train {tl:.4f}/{ta:.4f} val {vl:.4f}/{va:.4f} "
                      f"lr {self.scheduler.get_last_lr()[0]:.5f}", flush=True)
            save_checkpoint(self.model, self.optimizer, self.scaler, epoch, self.args.ckpt_dir)


def main():
    args = get_args()
    ctx = init_horovod(seed=42)
    if is_root():
        print(f"horovod size {ctx.size}, per-rank batch {args.batch_size}", flush=True)
    Trainer(args, ctx).fit()


if __name__ == "__main__":
    main()
