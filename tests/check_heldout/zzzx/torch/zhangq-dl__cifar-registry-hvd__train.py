"""
CIFAR-10 training, horovod version of our template (models are looked up by name in NETS).

    horovodrun -np 4 python train.py --arch vgg_s --epochs 60
"""
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd

NETS = {}


def net(name):
    def _reg(cls):
        NETS[name] = cls
        return cls
    return _reg


@net("vgg_s")
class VGGSmall(nn.Module):
    cfg = [32, 32, "M", 64, 64, "M", 128, "M"]

    def __init__(self, num_classes=10):
        super().__init__()
        layers, c = [], 3
        for v in self.cfg:
            if v == "M":
                layers.append(nn.MaxPool2d(2))
            else:
                layers += [nn.Conv2d(c, v, 3, padding=1), nn.BatchNorm2d(v), nn.ReLU(inplace=True)]
                c = v
        self.features = nn.Sequential(*layers)
        self.classifier = nn.Linear(128 * 4 * 4, num_classes)

    def forward(self, x):
        return self.classifier(torch.flatten(self.features(x), 1))


@net("lenet")
class LeNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.c1 = nn.Conv2d(3, 6, 5)
        self.c2 = nn.Conv2d(6, 16, 5)
        self.f1 = nn.Linear(16 * 5 * 5, 120)
        self.f2 = nn.Linear(120, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        return self.f2(F.relu(self.f1(torch.flatten(x, 1))))


p = argparse.ArgumentParser()
p.add_argument("--arch", default="vgg_s", choices=sorted(NETS))
p.add_argument("--data", default="./data/cifar10.npz")
p.add_argument("--epochs", type=int, default=60)
p.add_argument("--bs", type=int, default=128, help="per-worker batch size")
p.add_argument("--lr", type=float, default=0.05, help="lr for ONE worker")
p.add_argument("--wd", type=float, default=5e-4)
p.add_argument("--ckpt-dir", default="./checkpoints")
p.add_argument("--ckpt-every", type=int, default=500, help="iterations")
p.add_argument("--resume", default="")
args = p.parse_args()

hvd.init()
rank, world = hvd.rank(), hvd.size()
cuda = torch.cuda.is_available()
if cuda:
    torch.cuda.set_device(hvd.local_rank())
dev = torch.device("cuda" if cuda else "cpu")

raw = np.load(args.data)
xtr = torch.from_numpy(raw["x_train"]).permute(0, 3, 1, 2).float().div(255)
ytr = torch.from_numpy(raw["y_train"]).long().view(-1)
xte = torch.from_numpy(raw["x_test"]).permute(0, 3, 1, 2).float().div(255)
yte = torch.from_numpy(raw["y_test"]).long().view(-1)
mean = xtr.mean(dim=(0, 2, 3), keepdim=True)
std = xtr.std(dim=(0, 2, 3), keepdim=True)
xtr, xte = (xtr - mean) / std, (xte - mean) / std

# my own partition: same permutation on every worker (seeded by epoch), each takes every world-th index
per_worker = len(xtr) // world
steps_per_epoch = per_worker // args.bs


def my_indices(epoch):
    g = torch.Generator().manual_seed(1000 + epoch)
    perm = torch.randperm(len(xtr), generator=g)[: per_worker * world]
    return perm[rank::world]


test_idx = torch.arange(len(xte))[rank::world]

model = NETS[args.arch]().to(dev)
# gradients are SUMMED over workers below, so the per-worker lr already acts as lr * world
opt = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9, weight_decay=args.wd)
opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters(), op=hvd.Sum)

start_epoch, it = 0, 0
if args.resume and rank == 0:
    st = torch.load(args.resume, map_location="cpu")
    model.load_state_dict(st["model"])
    opt.load_state_dict(st["opt"])
    start_epoch, it = st["epoch"] + 1, st["it"]
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(opt, root_rank=0)
start_epoch = hvd.broadcast_object(start_epoch, root_rank=0, name="start_epoch")
it = hvd.broadcast_object(it, root_rank=0, name="it")
if rank == 0:
    os.makedirs(args.ckpt_dir, exist_ok=True)

for epoch in range(start_epoch, args.epochs):
    model.train()
    idx = my_indices(epoch)
    t0 = time.time()
    for s in range(steps_per_epoch):
        b = idx[s * args.bs:(s + 1) * args.bs]
        x, y = xtr[b].to(dev), ytr[b].to(dev)
        if torch.rand(1).item() < 0.5:
            x = x.flip(3)
        opt.zero_grad()
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        it += 1
        if rank == 0 and it % args.ckpt_every == 0:
            torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "epoch": epoch, "it": it},
                       os.path.join(args.ckpt_dir, "last.pt"))

    # eval: everyone does its slice, then sum hits and counts by hand
    model.eval()
    hits = torch.zeros(2, dtype=torch.float64)
    with torch.no_grad():
        for s in range(0, len(test_idx), 500):
            b = test_idx[s:s + 500]
            pred = model(xte[b].to(dev)).argmax(1).cpu()
            hits[0] += (pred == yte[b]).sum().item()
            hits[1] += len(b)
    hits = hvd.allreduce(hits, op=hvd.Sum, name="test_hits")
    if rank == 0:
        print(f"epoch {epoch} it {it} test_acc {100 * hits[0] / hits[1]:.2f} ({time.time() - t0:.0f}s)", flush=True)
