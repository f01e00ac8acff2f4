#!/usr/bin/env python
# ResNet-18 on an ImageFolder dataset, Horovod + SLURM auto-requeue.
#
# sbatch file:
#   #SBATCH --ntasks-per-node=4 --gres=gpu:4 --time=04:00:00 --signal=USR1@180 --requeue
#   srun python train_requeue.py --data /scratch/$USER/imagenette2 --ckpt-dir $SCRATCH/ckpt
#
# When the job gets close to its wall time SLURM sends SIGUSR1; we write a checkpoint and
# requeue the job, which resumes from ckpt-dir/last.pth on the next allocation.
import argparse
import os
import signal
import subprocess
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--data", required=True)
parser.add_argument("--ckpt-dir", default="./ckpt")
parser.add_argument("--epochs", type=int, default=90)
parser.add_argument("--batch-size", type=int, default=128)
parser.add_argument("--base-lr", type=float, default=0.05)
parser.add_argument("--wd", type=float, default=5e-5)
parser.add_argument("--workers", type=int, default=6)
args = parser.parse_args()

hvd.init()
# one GPU per SLURM task
local_gpu = int(os.environ.get("SLURM_PROCID", "0"))
if torch.cuda.is_available():
    torch.cuda.set_device(local_gpu)
    device = torch.device("cuda", local_gpu)
else:
    device = torch.device("cpu")

SIGNAL_RECEIVED = False


def _handle_usr1(signum, frame):
    global SIGNAL_RECEIVED
    SIGNAL_RECEIVED = True


signal.signal(signal.SIGUSR1, _handle_usr1)

os.makedirs(args.ckpt_dir, exist_ok=True)
last_ckpt = os.path.join(args.ckpt_dir, "last.pth")

normalize = T.Normalize(mean=[0.485, 0.456, 0.406], std=[0.229, 0.224, 0.225])
train_ds = torchvision.datasets.ImageFolder(
    os.path.join(args.data, "train"),
    T.Compose([T.RandomResizedCrop(160), T.RandomHorizontalFlip(), T.ToTensor(), normalize]))
val_ds = torchvision.datasets.ImageFolder(
    os.path.join(args.data, "val"),
    T.Compose([T.Resize(192), T.CenterCrop(160), T.ToTensor(), normalize]))

train_sampler = torch.utils.data.distributed.DistributedSampler(
    train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
val_sampler = torch.utils.data.distributed.DistributedSampler(
    val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = torch.utils.data.DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler,
                                           num_workers=args.workers, pin_memory=True, drop_last=True)
val_loader = torch.utils.data.DataLoader(val_ds, batch_size=args.batch_size, sampler=val_sampler,
                                         num_workers=args.workers)

model = torchvision.models.resnet18(num_classes=len(train_ds.classes)).to(device)
lr = args.base_lr * hvd.size()
optimizer = torch.optim.SGD(model.parameters(), lr=lr, momentum=0.9, weight_decay=args.wd, nesterov=True)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                     compression=hvd.Compression.fp16)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=args.epochs)

start_epoch = 0
if os.path.exists(last_ckpt):
    ckpt = torch.load(last_ckpt, map_location="cpu")
    model.load_state_dict(ckpt["model"])
    optimizer.load_state_dict(ckpt["optimizer"])
    scheduler.load_state_dict(ckpt["scheduler"])
    start_epoch = ckpt["epoch"] + 1
    if hvd.rank() == 0:
        print(f"resuming from epoch {start_epoch}", flush=True)

hvd.broadcast_parameters(model.state_dict(), root=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def save(epoch, path):
    torch.save({"model": model.state_dict(), "optimizer": optimizer.state_dict(),
                "scheduler": scheduler.state_dict(), "epoch": epoch}, path)


def requeue_and_exit(epoch):
    save(epoch, last_ckpt)
    if hvd.rank() == 0:
        job_id = os.environ.get("SLURM_JOB_ID")
        if job_id:
            print(f"requeueing job {job_id}", flush=True)
            subprocess.run(["scontrol", "requeue", job_id], check=False)
    sys.exit(0)


def validate():
    model.eval()
    stats = torch.zeros(3, device=device)
    with torch.no_grad():
        for x, y in val_loader:
            x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
            out = model(x)
            stats[0] += F.cross_entropy(out, y, reduction="sum")
            stats[1] += (out.argmax(1) == y).sum()
            stats[2] += y.numel()
    stats = hvd.allreduce(stats, op=hvd.Sum, name="val_stats")
    return (stats[0] / stats[2]).item(), (stats[1] / stats[2]).item()


for epoch in range(start_epoch, args.epochs):
    model.train()
    train_sampler.set_epoch(epoch)
    tic = time.time()
    for i, (x, y) in enumerate(train_loader):
        x, y = x.to(device, non_blocking=True), y.to(device, non_blocking=True)
        loss = F.cross_entropy(model(x), y, label_smoothing=0.1)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if i % 50 == 0 and hvd.rank() == 0:
            print(f"ep {epoch} it {i}/{len(train_loader)} loss {loss.item():.4f}", flush=True)
    scheduler.step()

    if SIGNAL_RECEIVED:
        # epoch is finished, resume at the next one
        requeue_and_exit(epoch)

    val_loss, val_acc = validate()
    if hvd.rank() == 0:
        print(f"epoch {epoch}: val_loss {val_loss:.4f} val_acc {val_acc:.4f} ({time.time() - tic:.0f}s)")
        save(epoch, last_ckpt)
        if (epoch + 1) % 10 == 0:
            save(epoch, os.path.join(args.ckpt_dir, f"epoch{epoch + 1:03d}.pth"))
