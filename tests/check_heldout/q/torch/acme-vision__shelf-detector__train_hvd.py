#!/usr/bin/env python
"""Shelf-gap crop classifier: Horovod training job.

Owner: perception team. Launched by the `shelf-train` Airflow DAG via
    horovodrun -np ${NUM_GPUS} python tools/train_hvd.py --data /data/shelf_crops --resume
"""
import argparse
import logging
import math
import os
import time

import horovod.torch as hvd
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
from torchvision import datasets, models, transforms

LOG = logging.getLogger("shelf")


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="/data/shelf_crops")
    p.add_argument("--ckpt-dir", default="/checkpoints/shelf")
    p.add_argument("--resume", action="store_true")
    p.add_argument("--epochs", type=int, default=25)
    p.add_argument("--batch-size", type=int, default=64, help="per GPU")
    p.add_argument("--lr", type=float, default=0.0125, help="per-GPU lr; scaled by world size")
    p.add_argument("--warmup-epochs", type=int, default=3)
    p.add_argument("--clip", type=float, default=5.0)
    p.add_argument("--img-size", type=int, default=128)
    p.add_argument("--workers", type=int, default=6)
    p.add_argument("--amp", action="store_true", default=torch.cuda.is_available())
    return p.parse_args()


def lr_at(epoch, args):
    peak = args.lr * hvd.size()
    if epoch < args.warmup_epochs:
        return peak * (epoch + 1) / args.warmup_epochs
    t = (epoch - args.warmup_epochs) / max(1, args.epochs - args.warmup_epochs)
    return 0.5 * peak * (1 + math.cos(math.pi * t))


def loaders(args):
    norm = transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    train_tf = transforms.Compose([transforms.RandomResizedCrop(args.img_size, scale=(0.6, 1.0)),
                                   transforms.RandomHorizontalFlip(), transforms.ToTensor(), norm])
    val_tf = transforms.Compose([transforms.Resize((args.img_size, args.img_size)), transforms.ToTensor(), norm])
    train_set = datasets.ImageFolder(os.path.join(args.data, "train"), train_tf)
    val_set = datasets.ImageFolder(os.path.join(args.data, "val"), val_tf)
    sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=sampler,
                              num_workers=args.workers, pin_memory=True, drop_last=True)
    # validation is small; rank 0 scores the whole split
    val_loader = DataLoader(val_set, batch_size=256, shuffle=False, num_workers=args.workers)
    return train_loader, val_loader, sampler, len(train_set.classes)


class Trainer:
    def __init__(self, model, optimizer, args, device):
        self.model, self.optimizer, self.args, self.device = model, optimizer, args, device
        self.scaler = torch.cuda.amp.GradScaler(enabled=args.amp)

    def step(self, images, targets):
        with torch.autocast("cuda", enabled=self.args.amp):
            loss = F.cross_entropy(self.model(images), targets)
        self.optimizer.zero_grad()
        self.scaler.scale(loss).backward()
        self.optimizer.synchronize()
        self.scaler.unscale_(self.optimizer)
        nn.utils.clip_grad_norm_(self.model.parameters(), self.args.clip)
        with self.optimizer.skip_synchronize():
            self.scaler.step(self.optimizer)
        self.scaler.update()
        return loss.detach()

    @torch.no_grad()
    def validate(self, loader):
        self.model.eval()
        correct = seen = 0
        for images, targets in loader:
            out = self.model(images.to(self.device))
            correct += (out.argmax(1).cpu() == targets).sum().item()
            seen += len(targets)
        self.model.train()
        return correct / seen


def main():
    args = parse_args()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR,
                        format="%(asctime)s %(name)s %(message)s")
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))

    train_loader, val_loader, sampler, n_classes = loaders(args)
    model = models.resnet18(num_classes=n_classes).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr_at(0, args), momentum=0.9, weight_decay=1e-4,
                                nesterov=True)

    start_epoch = 0
    ckpt_path = os.path.join(args.ckpt_dir, "latest.pt")
    if args.resume and hvd.rank() == 0 and os.path.exists(ckpt_path):
        state = torch.load(ckpt_path, map_location="cpu")
        model.load_state_dict(state["model"])
        optimizer.load_state_dict(state["optimizer"])
        start_epoch = state["epoch"] + 1
    start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)
    trainer = Trainer(model, optimizer, args, device)

    for epoch in range(start_epoch, args.epochs):
        sampler.set_epoch(epoch)
        for g in optimizer.param_groups:
            g["lr"] = lr_at(epoch, args)
        t0, running = time.time(), 0.0
        for images, targets in train_loader:
            running += trainer.step(images.to(device, non_blocking=True), targets.to(device, non_blocking=True)).item()
        if hvd.rank() == 0:
            acc = trainer.validate(val_loader)
            LOG.info("epoch %d  loss %.4f  val acc %.4f  lr %.5f  %.0fs", epoch, running / len(train_loader), acc,
                     optimizer.param_groups[0]["lr"], time.time() - t0)
            os.makedirs(args.ckpt_dir, exist_ok=True)
            torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
                       ckpt_path)


if __name__ == "__main__":
    main()
