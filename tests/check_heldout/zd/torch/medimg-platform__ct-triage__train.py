"""CT slice triage classifier - training entry point for the medimg platform runner.

The runner calls `python train.py --data <cache.pt> --run-dir <dir>`; defaults come from
MEDIMG_* environment variables so that the same image runs in CI with tiny settings.
"""
import argparse
import json
import logging
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

log = logging.getLogger("ct_triage")


def env(name, default, cast=str):
    return cast(os.environ.get("MEDIMG_" + name, default))


def get_args():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default=env("DATA", "/cache/ct_triage/slices_v3.pt"))
    p.add_argument("--run-dir", default=env("RUN_DIR", "/mnt/objstore/medimg/runs/ct-triage"))
    p.add_argument("--epochs", type=int, default=env("EPOCHS", 30, int))
    p.add_argument("--batch-size", type=int, default=env("BATCH_SIZE", 32, int))
    p.add_argument("--lr", type=float, default=env("LR", 3e-4, float))
    p.add_argument("--warmup-epochs", type=int, default=env("WARMUP_EPOCHS", 2, int))
    return p.parse_args()


class SliceNet(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(64, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))


def evaluate(model, loader, device):
    model.eval()
    loss_sum, correct, n = 0.0, 0, 0
    with torch.no_grad():
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            out = model(x)
            loss_sum += F.cross_entropy(out, y, reduction="sum").item()
            correct += (out.argmax(1) == y).sum().item()
            n += len(y)
    val_loss = hvd.allreduce(loss_sum / n, name="val_loss")
    val_acc = hvd.allreduce(correct / n, name="val_acc")
    return float(val_loss), float(val_acc)


def main():
    args = get_args()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING,
                        format="%(asctime)s %(levelname)s %(message)s")
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")

    data = torch.load(args.data)
    train_ds = TensorDataset(data["train_x"], data["train_y"])
    val_ds = TensorDataset(data["val_x"], data["val_y"])
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler)
    val_loader = DataLoader(val_ds, batch_size=args.batch_size, sampler=val_sampler)

    model = SliceNet().to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    warmup_steps = max(1, args.warmup_epochs * len(train_loader))
    # gradual warm-up from the single-worker lr to lr * size (Goyal et al.)
    scheduler = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda step: 1.0 / hvd.size() + (1 - 1.0 / hvd.size()) * min(1.0, (step + 1) / warmup_steps))
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    base_loss, base_acc = evaluate(model, val_loader, device)
    log.info("baseline val_loss=%.4f val_acc=%.4f", base_loss, base_acc)

    history = []
    for epoch in range(args.epochs):
        model.train()
        train_sampler.set_epoch(epoch)
        t0 = time.time()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            F.cross_entropy(model(x), y).backward()
            optimizer.step()
            scheduler.step()
        val_loss, val_acc = evaluate(model, val_loader, device)
        history.append({"epoch": epoch, "val_loss": val_loss, "val_acc": val_acc, "secs": time.time() - t0})
        log.info(json.dumps(history[-1]))
        if hvd.rank() == 0:
            os.makedirs(args.run_dir, exist_ok=True)
            torch.save({"epoch": epoch, "model": model.state_dict(), "optimizer": optimizer.state_dict()},
                       os.path.join(args.run_dir, "last.pt"))
            with open(os.path.join(args.run_dir, "history.json"), "w") as f:
                json.dump(history, f)


if __name__ == "__main__":
    main()
