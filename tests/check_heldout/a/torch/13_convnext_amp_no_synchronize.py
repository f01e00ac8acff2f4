"""ConvNeXt-Tiny on ImageNet-100 with mixed precision and gradient clipping (Horovod)."""
import argparse
import os
import time

import torch
import torch.nn as nn
from torch.cuda.amp import GradScaler, autocast
from torch.utils.data import DataLoader
from torch.utils.data.distributed import DistributedSampler
import torchvision
from torchvision import transforms
import horovod.torch as hvd

cfg = {
    "train_dir": "/datasets/imagenet100/train",
    "val_dir": "/datasets/imagenet100/val",
    "img_size": 224,
    "batch_size": 96,
    "epochs": 100,
    "base_lr": 1e-3,       # for 256 images per step
    "weight_decay": 0.05,
    "warmup_epochs": 5,
    "clip": 5.0,
    "out": "convnext_in100",
}


class AverageMeter:
    def __init__(self):
        self.sum, self.count = 0.0, 0

    def update(self, v, n=1):
        self.sum += v * n
        self.count += n

    def all_reduce(self, name):
        t = torch.tensor([self.sum, self.count], dtype=torch.float64)
        t = hvd.allreduce(t, op=hvd.Sum, name=name)
        self.sum, self.count = t[0].item(), int(t[1].item())

    @property
    def avg(self):
        return self.sum / max(self.count, 1)


def build_data(c):
    norm = transforms.Normalize([0.485, 0.456, 0.406], [0.229, 0.224, 0.225])
    tr = torchvision.datasets.ImageFolder(c["train_dir"], transforms.Compose([
        transforms.RandomResizedCrop(c["img_size"]), transforms.RandomHorizontalFlip(),
        transforms.TrivialAugmentWide(), transforms.ToTensor(), norm]))
    va = torchvision.datasets.ImageFolder(c["val_dir"], transforms.Compose([
        transforms.Resize(256), transforms.CenterCrop(c["img_size"]), transforms.ToTensor(), norm]))
    trs = DistributedSampler(tr, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True, drop_last=True)
    vas = DistributedSampler(va, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    return (DataLoader(tr, c["batch_size"], sampler=trs, num_workers=8, pin_memory=True, persistent_workers=True),
            DataLoader(va, 128, sampler=vas, num_workers=4, pin_memory=True), trs)


def train_one_epoch(model, loader, optimizer, scaler, scheduler, criterion, epoch, c):
    model.train()
    meter = AverageMeter()
    for step, (x, y) in enumerate(loader):
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        optimizer.zero_grad(set_to_none=True)
        with autocast():
            loss = criterion(model(x), y)
        scaler.scale(loss).backward()
        scaler.unscale_(optimizer)
        nn.utils.clip_grad_norm_(model.parameters(), c["clip"])
        scaler.step(optimizer)
        scaler.update()
        scheduler.step()
        meter.update(loss.item(), x.size(0))
    meter.all_reduce("train_loss")
    return meter.avg


@torch.no_grad()
def validate(model, loader):
    model.eval()
    top1 = AverageMeter()
    for x, y in loader:
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        with autocast():
            out = model(x)
        top1.update((out.argmax(1) == y).float().mean().item(), x.size(0))
    top1.all_reduce("val_top1")
    return top1.avg


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=cfg["epochs"])
    parser.add_argument("--out", default=cfg["out"])
    args = parser.parse_args()
    cfg.update(epochs=args.epochs, out=args.out)

    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    torch.backends.cudnn.benchmark = True

    train_loader, val_loader, train_sampler = build_data(cfg)
    model = torchvision.models.convnext_tiny(num_classes=100).cuda()

    global_batch = cfg["batch_size"] * hvd.size()
    lr = cfg["base_lr"] * global_batch / 256
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=cfg["weight_decay"])
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16)
    steps_per_epoch = len(train_loader)
    warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.01,
                                               total_iters=cfg["warmup_epochs"] * steps_per_epoch)
    cosine = torch.optim.lr_scheduler.CosineAnnealingLR(
        optimizer, T_max=(cfg["epochs"] - cfg["warmup_epochs"]) * steps_per_epoch)
    scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup, cosine],
                                                      milestones=[cfg["warmup_epochs"] * steps_per_epoch])
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    scaler = GradScaler()
    criterion = nn.CrossEntropyLoss(label_smoothing=0.1)
    if hvd.rank() == 0:
        os.makedirs(args.out, exist_ok=True)

    for epoch in range(cfg["epochs"]):
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        train_loss = train_one_epoch(model, train_loader, optimizer, scaler, scheduler, criterion, epoch, cfg)
        acc1 = validate(model, val_loader)
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d} loss {train_loss:.4f} top1 {acc1 * 100:.2f} time {time.time() - t0:.0f}s")
            torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict(),
                        "scaler": scaler.state_dict()}, os.path.join(args.out, "checkpoint.pth"))


if __name__ == "__main__":
    main()
