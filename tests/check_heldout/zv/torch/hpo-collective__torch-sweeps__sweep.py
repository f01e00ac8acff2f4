#!/usr/bin/env python
"""LR sweep for the blob classifier. Launch with:  horovodrun -np 4 python sweep.py --config cfg.json"""
import argparse
import time

import torch
import torch.nn.functional as F
import horovod.torch as hvd

from sweeps.config import SweepConfig
from sweeps import zoo
from sweeps.data import loaders
from sweeps.dist import setup, is_main, global_sum
from sweeps.tracking import BestTracker, write_trial


def run_trial(cfg, lr, device):
    torch.manual_seed(cfg.seed)
    train_loader, val_loader, train_sampler = loaders(cfg, hvd.rank(), hvd.size())
    model = zoo.build(cfg.model, n_features=cfg.n_features, n_classes=cfg.n_classes).to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=lr * hvd.size(),
                                momentum=cfg.momentum, weight_decay=cfg.weight_decay)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    best_acc = 0.0
    for epoch in range(cfg.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()

        model.eval()
        correct, seen = 0, 0
        with torch.no_grad():
            for x, y in val_loader:
                pred = model(x.to(device)).argmax(1)
                correct += (pred.cpu() == y).sum().item()
                seen += y.numel()
        acc = global_sum(correct, "val.correct") / global_sum(seen, "val.seen")
        best_acc = max(best_acc, acc)
        if is_main():
            print(f"[lr={lr:g}] epoch {epoch} loss {loss.item():.4f} val_acc {acc:.4f}")
    return model, best_acc


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", default=None, help="json file with SweepConfig fields")
    parser.add_argument("--model", default=None)
    parser.add_argument("--epochs", type=int, default=None)
    args = parser.parse_args()

    cfg = SweepConfig.from_json(args.config) if args.config else SweepConfig()
    if args.model:
        cfg.model = args.model
    if args.epochs:
        cfg.epochs = args.epochs

    device = setup()
    tracker = BestTracker(cfg.out_dir, mode="max")
    for lr in cfg.lrs:
        name = f"{cfg.model}_lr{lr:g}"
        t0 = time.time()
        model, best_acc = run_trial(cfg, lr, device)
        if is_main():
            is_best = tracker.update(name, best_acc, model)
            write_trial(cfg.out_dir, name, {"lr": lr, "world_size": hvd.size(), "best_val_acc": best_acc,
                                            "seconds": time.time() - t0, "is_best": is_best})
    if is_main():
        print("best:", tracker.best, tracker.history)


if __name__ == "__main__":
    main()
