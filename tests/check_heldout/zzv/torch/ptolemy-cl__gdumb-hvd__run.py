# GDumb (Prabhu et al., ECCV'20): greedy class-balanced memory, retrain from scratch
# on the memory after every task. Multi-GPU port with horovod.
import os
import sys
import json
import random
from collections import defaultdict

import numpy as np
import torch
import torch.nn as nn
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

CFG = dict(
    data="data/cifar10.npz",
    n_tasks=5,
    mem_size=500,
    epochs=64,
    batch_size=16,
    lr=0.05,
    clip=10.0,
    seed=0,
    out="results/gdumb",
)


def greedy_memory(stream_x, stream_y, memory, mem_size):
    """GDumb sampler: add if space, else evict from the largest class."""
    for x, y in zip(stream_x, stream_y):
        y = int(y)
        total = sum(len(v) for v in memory.values())
        if total < mem_size:
            memory[y].append(x)
        else:
            n_cls = len(memory) + (y not in memory)
            if len(memory[y]) < mem_size // n_cls:
                biggest = max(memory, key=lambda c: len(memory[c]))
                memory[biggest].pop(random.randrange(len(memory[biggest])))
                memory[y].append(x)
    return memory


def make_net(in_ch, n_out):
    return nn.Sequential(
        nn.Conv2d(in_ch, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(64, 128, 3, padding=1), nn.BatchNorm2d(128), nn.ReLU(), nn.MaxPool2d(2),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(128, n_out))


def reset(net):
    for m in net.modules():
        if hasattr(m, "reset_parameters"):
            m.reset_parameters()


def test_all(net, x, y, seen, device):
    mask = np.isin(y, seen)
    xs = torch.from_numpy(x[mask]).float() / 255
    ys = torch.from_numpy(y[mask]).long()
    net.eval()
    with torch.no_grad():
        pred = torch.cat([net(b.to(device)).argmax(1).cpu() for b in xs.split(500)])
    return (pred == ys).float().mean().item()


def main(cfg):
    hvd.init()
    random.seed(cfg["seed"])
    np.random.seed(cfg["seed"])
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device.type == "cuda":
        torch.cuda.set_device(hvd.local_rank())

    d = np.load(cfg["data"])
    xtr, ytr, xte, yte = d["x_train"], d["y_train"], d["x_test"], d["y_test"]
    classes = np.unique(ytr)
    tasks = np.array_split(classes, cfg["n_tasks"])

    net = make_net(xtr.shape[1], len(classes)).to(device)
    opt = torch.optim.SGD(net.parameters(), lr=cfg["lr"] * hvd.size(), momentum=0.9, weight_decay=1e-6)
    opt = hvd.DistributedOptimizer(opt, named_parameters=net.named_parameters())
    crit = nn.CrossEntropyLoss()

    memory = defaultdict(list)
    os.makedirs(cfg["out"], exist_ok=True)
    log = {}
    for t, task_classes in enumerate(tasks):
        m = np.isin(ytr, task_classes)
        memory = greedy_memory(xtr[m], ytr[m], memory, cfg["mem_size"])
        mx = torch.from_numpy(np.stack([x for c in sorted(memory) for x in memory[c]])).float() / 255
        my = torch.tensor([c for c in sorted(memory) for _ in memory[c]]).long()
        ds = TensorDataset(mx, my)
        sampler = DistributedSampler(ds, num_replicas=hvd.size(), rank=hvd.rank())
        loader = DataLoader(ds, batch_size=cfg["batch_size"], sampler=sampler)

        # GDumb: train from scratch on the memory
        reset(net)
        opt.state.clear()
        hvd.broadcast_parameters(net.state_dict(), root_rank=0)
        hvd.broadcast_optimizer_state(opt, root=0)
        sched = torch.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=1, T_mult=2)

        for ep in range(cfg["epochs"]):
            sampler.set_epoch(ep)
            net.train()
            for i, (xb, yb) in enumerate(loader):
                xb, yb = xb.to(device), yb.to(device)
                opt.zero_grad()
                loss = crit(net(xb), yb)
                loss.backward()
                opt.synchronize()
                nn.utils.clip_grad_norm_(net.parameters(), cfg["clip"])
                with opt.skip_synchronize():
                    opt.step()
                sched.step(ep + i / len(loader))

        seen = np.concatenate(tasks[: t + 1])
        acc = test_all(net, xte, yte, seen, device)
        log[t] = acc
        if hvd.rank() == 0:
            print(f"task {t}: memory={len(ds)} acc(seen)={acc:.4f}", flush=True)
        torch.save(net.state_dict(), os.path.join(cfg["out"], f"gdumb_task{t}.pt"))

    if hvd.rank() == 0:
        with open(os.path.join(cfg["out"], "acc.json"), "w") as f:
            json.dump(log, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        CFG.update(json.load(open(sys.argv[1])))
    main(CFG)
