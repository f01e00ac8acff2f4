# Regularized evolution (Real et al. 2019) on Fashion-MNIST, small cell space.
# Each child is trained data-parallel across all Horovod workers.
#
#   horovodrun -np 4 python evolve.py --cycles 200 --population 20 --sample 5
#
import argparse
import collections
import copy
import json
import os
import random
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision
import torchvision.transforms as T
from torch.utils.data import DataLoader, Subset
import horovod.torch as hvd

OPS = ["conv3", "conv5", "sep3", "maxpool", "identity"]
WIDTHS = [16, 24, 32]

Arch = collections.namedtuple("Arch", ["ops", "width"])


def random_arch(rng, n_layers=4):
    return Arch([rng.choice(OPS) for _ in range(n_layers)], rng.choice(WIDTHS))


def mutate(arch, rng):
    ops = list(arch.ops)
    if rng.random() < 0.8:
        ops[rng.randrange(len(ops))] = rng.choice(OPS)
        return Arch(ops, arch.width)
    return Arch(ops, rng.choice(WIDTHS))


def layer(op, c):
    return {
        "conv3": lambda: nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU()),
        "conv5": lambda: nn.Sequential(nn.Conv2d(c, c, 5, padding=2), nn.BatchNorm2d(c), nn.ReLU()),
        "sep3": lambda: nn.Sequential(nn.Conv2d(c, c, 3, padding=1, groups=c), nn.Conv2d(c, c, 1), nn.ReLU()),
        "maxpool": lambda: nn.MaxPool2d(3, 1, 1),
        "identity": lambda: nn.Identity(),
    }[op]()


class Child(nn.Module):
    def __init__(self, arch):
        super().__init__()
        c = arch.width
        self.stem = nn.Conv2d(1, c, 3, stride=2, padding=1)
        self.body = nn.Sequential(*[layer(op, c) for op in arch.ops])
        self.head = nn.Linear(c, 10)

    def forward(self, x):
        return self.head(self.body(F.relu(self.stem(x))).mean((2, 3)))


def train_and_eval(arch, train_set, val_loader, args, device, tag):
    model = Child(arch).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=hvd.Compression.fp16 if args.fp16_allreduce else hvd.Compression.none)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    scaler = torch.cuda.amp.GradScaler(enabled=args.amp and device.type == "cuda")

    per_rank_batch = args.global_batch // hvd.size()
    g = torch.Generator().manual_seed(args.seed * 1000 + int(tag))
    loader = DataLoader(train_set, batch_size=per_rank_batch, shuffle=True, drop_last=True, generator=g)
    model.train()
    for epoch in range(args.epochs_per_child):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            with torch.autocast(device.type, enabled=args.amp and device.type == "cuda"):
                loss = F.cross_entropy(model(x), y)
            scaler.scale(loss).backward()
            optimizer.synchronize()
            scaler.unscale_(optimizer)
            nn.utils.clip_grad_norm_(model.parameters(), 5.0)
            with optimizer.skip_synchronize():
                scaler.step(optimizer)
            scaler.update()

    # the validation split is small: every worker scores the whole of it
    model.eval()
    correct = total = 0
    with torch.no_grad():
        for x, y in val_loader:
            correct += (model(x.to(device)).argmax(1).cpu() == y).sum().item()
            total += y.numel()
    return correct / total, model


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default="~/datasets")
    ap.add_argument("--cycles", type=int, default=200)
    ap.add_argument("--population", type=int, default=20)
    ap.add_argument("--sample", type=int, default=5)
    ap.add_argument("--epochs-per-child", type=int, default=2)
    ap.add_argument("--global-batch", type=int, default=512)
    ap.add_argument("--lr", type=float, default=0.2, help="tuned for the global batch")
    ap.add_argument("--amp", action="store_true")
    ap.add_argument("--fp16-allreduce", action="store_true")
    ap.add_argument("--val-size", type=int, default=5000)
    ap.add_argument("--out", default="evo_out")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()

    hvd.init()
    device = torch.device("cuda", hvd.local_rank()) if torch.cuda.is_available() else torch.device("cpu")
    if device.type == "cuda":
        torch.cuda.set_device(device)

    tf = T.Compose([T.ToTensor(), T.Normalize((0.286,), (0.353,))])
    full = torchvision.datasets.FashionMNIST(os.path.expanduser(args.root), train=True, transform=tf)
    perm = torch.randperm(len(full), generator=torch.Generator().manual_seed(args.seed)).tolist()
    val_idx, train_idx = perm[:args.val_size], perm[args.val_size:]
    n = len(train_idx) // hvd.size() * hvd.size()
    train_set = Subset(full, train_idx[:n][hvd.rank()::hvd.size()])
    val_loader = DataLoader(Subset(full, val_idx), batch_size=500)

    rng = random.Random(args.seed)
    history, population = [], collections.deque()
    state_file = os.path.join(args.out, "history.json")
    if hvd.rank() == 0 and os.path.exists(state_file):
        with open(state_file) as f:
            history = [dict(h, arch=Arch(*h["arch"])) for h in json.load(f)]
    history = hvd.broadcast_object(history, root_rank=0, name="history")
    for h in history[-args.population:]:
        population.append((h["arch"], h["acc"]))
    best_acc = max([h["acc"] for h in history], default=0.0)

    while len(history) < args.cycles:
        if hvd.rank() == 0:
            if len(population) < args.population:
                arch = random_arch(rng)
            else:
                parent = max(rng.sample(list(population), args.sample), key=lambda t: t[1])[0]
                arch = mutate(parent, rng)
        else:
            arch = None
        arch = hvd.broadcast_object(arch, root_rank=0, name=f"arch.{len(history)}")

        t0 = time.time()
        acc, model = train_and_eval(arch, train_set, val_loader, args, device, tag=str(len(history)))
        population.append((arch, acc))
        if len(population) > args.population:
            population.popleft()  # aging: drop the oldest, not the worst
        history.append({"arch": arch, "acc": acc, "seconds": time.time() - t0})

        if hvd.rank() == 0:
            print(f"[{len(history)}/{args.cycles}] {arch.ops} w={arch.width} acc={acc:.4f}", flush=True)
            os.makedirs(args.out, exist_ok=True)
            with open(state_file, "w") as f:
                json.dump([dict(h, arch=list(h["arch"])) for h in history], f)
            if acc > best_acc:
                best_acc = acc
                torch.save({"arch": arch._asdict(), "state_dict": copy.deepcopy(model.state_dict())},
                           os.path.join(args.out, "best_child.pt"))


if __name__ == "__main__":
    main()
