#!/usr/bin/env python
# Blind Gaussian denoising (DnCNN-style) on BSD400 patches, multi-GPU with Horovod.
# Global batch is fixed (128 patches as in the paper); each worker takes its share.
import argparse
import glob
import math
import os

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd
from PIL import Image

parser = argparse.ArgumentParser(description="DnCNN-B horovod")
parser.add_argument("--train-glob", default="data/BSD400/*.png")
parser.add_argument("--val-glob", default="data/BSD68/*.png")
parser.add_argument("--global-batch", type=int, default=128)
parser.add_argument("--patch", type=int, default=40)
parser.add_argument("--lr", type=float, default=1e-3)
parser.add_argument("--epochs", type=int, default=50)
parser.add_argument("--iters-per-epoch", type=int, default=1000)
parser.add_argument("--sigma-max", type=float, default=55.0)
parser.add_argument("--amp", action="store_true")
parser.add_argument("--ckpt", default="checkpoints/dncnn_b.pt")
parser.add_argument("--save-every", type=int, default=5)
args = parser.parse_args()

hvd.init()
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device("cuda" if use_cuda else "cpu")
np.random.seed(42 + hvd.rank())   # different random crops/noise per worker
torch.manual_seed(42)


def load_gray(path):
    return np.asarray(Image.open(path).convert("L"), dtype=np.float32) / 255.0


all_files = sorted(glob.glob(args.train_glob))
n_keep = len(all_files) - len(all_files) % hvd.size()
my_images = [load_gray(f) for f in all_files[:n_keep][hvd.rank()::hvd.size()]]
val_images = [load_gray(f) for f in sorted(glob.glob(args.val_glob))]
local_batch = args.global_batch // hvd.size()


def sample_batch():
    """Random patch from a random image of this worker's share, random sigma."""
    xs = []
    for _ in range(local_batch):
        img = my_images[np.random.randint(len(my_images))]
        i = np.random.randint(0, img.shape[0] - args.patch + 1)
        j = np.random.randint(0, img.shape[1] - args.patch + 1)
        p = img[i:i + args.patch, j:j + args.patch]
        xs.append(np.rot90(p, np.random.randint(4)).copy())
    clean = torch.from_numpy(np.stack(xs)[:, None])
    sigma = torch.rand(local_batch, 1, 1, 1) * args.sigma_max / 255.0
    return clean + torch.randn_like(clean) * sigma, clean


class DnCNN(nn.Module):
    def __init__(self, depth=17, ch=64):
        super().__init__()
        layers = [nn.Conv2d(1, ch, 3, padding=1), nn.ReLU(inplace=True)]
        for _ in range(depth - 2):
            layers += [nn.Conv2d(ch, ch, 3, padding=1, bias=False), nn.BatchNorm2d(ch), nn.ReLU(inplace=True)]
        layers.append(nn.Conv2d(ch, 1, 3, padding=1))
        self.net = nn.Sequential(*layers)

    def forward(self, y):
        return y - self.net(y)   # residual learning


model = DnCNN().to(device)
# lr is tuned for the global batch of 128, which does not change with the number of workers
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
MILESTONES = (30, 45)
scaler = torch.amp.GradScaler("cuda", enabled=args.amp and use_cuda)

start_epoch = 0
if hvd.rank() == 0 and os.path.exists(args.ckpt):
    ck = torch.load(args.ckpt, map_location="cpu")
    model.load_state_dict(ck["model"])
    optimizer.load_state_dict(ck["optim"])
    start_epoch = ck["epoch"] + 1
start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                     compression=hvd.Compression.fp16 if args.amp else hvd.Compression.none)
criterion = nn.MSELoss(reduction="sum")


@torch.no_grad()
def evaluate(sigma=25.0):
    # every worker scores the full BSD68 set with the same noise seed
    model.eval()
    g = torch.Generator().manual_seed(0)
    scores = []
    for img in val_images:
        clean = torch.from_numpy(img)[None, None]
        noisy = clean + torch.randn(clean.shape, generator=g) * sigma / 255.0
        out = model(noisy.to(device)).clamp(0, 1).cpu()
        mse = torch.mean((out - clean) ** 2).item()
        scores.append(10 * math.log10(1.0 / max(mse, 1e-10)))
    model.train()
    return sum(scores) / len(scores)


for epoch in range(start_epoch, args.epochs):
    model.train()
    for group in optimizer.param_groups:   # step decay, recomputed so resume needs no scheduler state
        group["lr"] = args.lr * 0.1 ** sum(epoch >= m for m in MILESTONES)
    running = 0.0
    for it in range(args.iters_per_epoch):
        noisy, clean = sample_batch()
        noisy, clean = noisy.to(device), clean.to(device)
        optimizer.zero_grad()
        with torch.autocast(device_type=device.type, enabled=args.amp and use_cuda):
            loss = criterion(model(noisy), clean) / (2 * local_batch)
        scaler.scale(loss).backward()
        optimizer.synchronize()
        scaler.unscale_(optimizer)
        with optimizer.skip_synchronize():
            scaler.step(optimizer)
        scaler.update()
        running += loss.item()
    val_psnr = evaluate()
    if hvd.rank() == 0:
        print(f"[{epoch:03d}] loss {running / args.iters_per_epoch:.5f}  BSD68 sigma25 PSNR {val_psnr:.2f}")
        if (epoch + 1) % args.save_every == 0 or epoch + 1 == args.epochs:
            os.makedirs(os.path.dirname(args.ckpt) or ".", exist_ok=True)
            torch.save({"model": model.state_dict(), "optim": optimizer.state_dict(),
                        "epoch": epoch}, args.ckpt)
