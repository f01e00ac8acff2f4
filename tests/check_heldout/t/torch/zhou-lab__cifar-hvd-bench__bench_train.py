#!/usr/bin/env python
"""Throughput + time-to-accuracy benchmark: ResNet-20 on CIFAR-10 with Horovod.

Part of our scaling study (1-32 GPUs). Reported numbers: img/s per GPU (mean over timed
iterations, averaged across workers) and wall-clock to 91% top-1.

    horovodrun -np 4 -H host1:2,host2:2 python bench_train.py --data /scratch/cifar10.npz

Gradients are SUMMED across workers (op=hvd.Sum) and the LR is the single-worker LR: with a
per-worker batch of 128 this is the same update as averaging with lr * size, without touching
the LR schedule between runs of the sweep.
"""
import argparse
import json
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/scratch/cifar10.npz")
parser.add_argument("--batch-size", type=int, default=128, help="per worker")
parser.add_argument("--lr", type=float, default=0.1, help="single-worker lr")
parser.add_argument("--epochs", type=int, default=30)
parser.add_argument("--warmup-iters", type=int, default=10)
parser.add_argument("--fp16-allreduce", action="store_true")
parser.add_argument("--target-acc", type=float, default=0.91)
parser.add_argument("--results", default="results")
args = parser.parse_args()

hvd.init()
torch.manual_seed(1234)
use_cuda = torch.cuda.is_available()
if use_cuda:
    torch.cuda.set_device(hvd.local_rank())
    torch.backends.cudnn.benchmark = True
device = torch.device("cuda" if use_cuda else "cpu")


# ---- ResNet-20 (He et al. 2016, option A shortcuts) --------------------------------------
class Block(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.pad = cout - cin
        self.stride = stride

    def forward(self, x):
        out = F.relu(self.b1(self.c1(x)))
        out = self.b2(self.c2(out))
        sc = x[:, :, ::self.stride, ::self.stride] if self.stride > 1 else x
        if self.pad:
            sc = F.pad(sc, (0, 0, 0, 0, self.pad // 2, self.pad - self.pad // 2))
        return F.relu(out + sc)


def resnet20(n=3, num_classes=10):
    layers, cin = [nn.Conv2d(3, 16, 3, 1, 1, bias=False), nn.BatchNorm2d(16), nn.ReLU()], 16
    for cout, stride in ((16, 1), (32, 2), (64, 2)):
        for i in range(n):
            layers.append(Block(cin, cout, stride if i == 0 else 1))
            cin = cout
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, num_classes)]
    return nn.Sequential(*layers)


# ---- data: one npz, each worker takes a strided slice of a shared permutation ------------
blob = np.load(args.data)
x_train = torch.from_numpy(blob["x_train"]).permute(0, 3, 1, 2).float().div_(255)
y_train = torch.from_numpy(blob["y_train"].reshape(-1)).long()
x_test = torch.from_numpy(blob["x_test"]).permute(0, 3, 1, 2).float().div_(255)
y_test = torch.from_numpy(blob["y_test"].reshape(-1)).long()
mean = x_train.mean(dim=(0, 2, 3), keepdim=True)
std = x_train.std(dim=(0, 2, 3), keepdim=True)
x_train, x_test = (x_train - mean) / std, (x_test - mean) / std

steps_per_epoch = len(x_train) // (args.batch_size * hvd.size())


def epoch_batches(epoch):
    g = torch.Generator().manual_seed(epoch)            # same permutation on every worker
    perm = torch.randperm(len(x_train), generator=g)
    mine = perm[hvd.rank()::hvd.size()][: steps_per_epoch * args.batch_size]
    for i in range(steps_per_epoch):
        idx = mine[i * args.batch_size:(i + 1) * args.batch_size]
        xb = x_train[idx]
        flip = torch.rand(len(idx)) < 0.5
        xb[flip] = xb[flip].flip(3)
        yield xb, y_train[idx]


model = resnet20().to(device)
optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4, nesterov=True)
compression = hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                     compression=compression, op=hvd.Sum)
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)
scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, max_lr=args.lr, epochs=args.epochs,
                                                steps_per_epoch=steps_per_epoch, pct_start=0.15)


@torch.no_grad()
def full_test_accuracy():
    # rank 0 only, on the whole test set: no sampler padding, numbers comparable across sweep sizes
    model.eval()
    correct = 0
    for i in range(0, len(x_test), 1000):
        out = model(x_test[i:i + 1000].to(device))
        correct += (out.argmax(1).cpu() == y_test[i:i + 1000]).sum().item()
    model.train()
    return correct / len(x_test)


t_start = time.time()
history, reached = [], None
for epoch in range(args.epochs):
    model.train()
    seen, t_ep = 0, None
    for it, (xb, yb) in enumerate(epoch_batches(epoch)):
        if it == args.warmup_iters:
            if use_cuda:
                torch.cuda.synchronize()
            t_ep = time.time()
        xb, yb = xb.to(device, non_blocking=True), yb.to(device, non_blocking=True)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(xb), yb)
        loss.backward()
        optimizer.step()
        scheduler.step()
        if t_ep is not None:
            seen += len(xb)
    if use_cuda:
        torch.cuda.synchronize()
    ips = torch.tensor(seen / (time.time() - t_ep) if t_ep else 0.0)
    ips = hvd.allreduce(ips, name="img_per_sec").item()        # mean over workers
    if hvd.rank() == 0:
        acc = full_test_accuracy()
        history.append({"epoch": epoch, "img_s_per_gpu": ips, "test_acc": acc, "wall": time.time() - t_start})
        print(f"[{epoch:03d}] {ips:8.1f} img/s/gpu  test acc {acc:.4f}", flush=True)
        if reached is None and acc >= args.target_acc:
            reached = time.time() - t_start

if hvd.rank() == 0:
    os.makedirs(args.results, exist_ok=True)
    tag = f"np{hvd.size()}_bs{args.batch_size}"
    with open(os.path.join(args.results, f"{tag}.json"), "w") as f:
        json.dump({"size": hvd.size(), "history": history, "time_to_target": reached}, f, indent=1)
    torch.save(model.state_dict(), os.path.join(args.results, f"{tag}_resnet20.pt"))
