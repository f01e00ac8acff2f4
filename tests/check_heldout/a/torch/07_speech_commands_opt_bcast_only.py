"""Keyword spotting (Speech Commands v2) on precomputed log-mel features, Horovod data parallel.

features were dumped with prep_features.py into <root>/{train,valid}.pt as dicts {x: [N,40,101], y: [N]}
"""
import argparse
import json
import os
import time

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import TensorDataset, DataLoader, DistributedSampler
import horovod.torch as hvd

DEFAULTS = dict(root="/gpfs/projects/kws/features", epochs=30, batch_size=256, lr=3e-4,
                dropout=0.2, n_classes=35, ckpt="kws_crnn.pt", log_every=20)


class CRNN(nn.Module):
    def __init__(self, n_mels=40, n_classes=35, hidden=128, dropout=0.2):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(n_mels, 128, 5, padding=2), nn.BatchNorm1d(128), nn.ReLU(),
            nn.Conv1d(128, 128, 5, padding=2), nn.BatchNorm1d(128), nn.ReLU())
        self.gru = nn.GRU(128, hidden, num_layers=2, batch_first=True, bidirectional=True, dropout=dropout)
        self.fc = nn.Linear(2 * hidden, n_classes)

    def forward(self, x):           # x: [B, n_mels, T]
        h = self.conv(x).transpose(1, 2)
        h, _ = self.gru(h)
        return self.fc(h.mean(1))


def load_split(root, name):
    blob = torch.load(os.path.join(root, f"{name}.pt"))
    return TensorDataset(blob["x"].float(), blob["y"].long())


def run_epoch(model, loader, optimizer, device, epoch, cfg):
    model.train()
    seen, loss_sum = 0, 0.0
    t0 = time.time()
    for i, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = F.cross_entropy(model(x), y, label_smoothing=0.1)
        loss.backward()
        optimizer.step()
        loss_sum += loss.item() * x.size(0)
        seen += x.size(0)
        if hvd.rank() == 0 and i % cfg["log_every"] == 0:
            print(f"ep {epoch} it {i}/{len(loader)} loss {loss.item():.3f} ({time.time() - t0:.1f}s)")
    return loss_sum / seen


@torch.no_grad()
def evaluate(model, loader, device):
    model.eval()
    correct, total = 0, 0
    for x, y in loader:
        x, y = x.to(device), y.to(device)
        correct += (model(x).argmax(-1) == y).sum().item()
        total += y.numel()
    return correct / total


def main():
    ap = argparse.ArgumentParser()
    for k, v in DEFAULTS.items():
        ap.add_argument("--" + k, type=type(v), default=v)
    cfg = vars(ap.parse_args())

    hvd.init()
    torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda")

    train_ds, valid_ds = load_split(cfg["root"], "train"), load_split(cfg["root"], "valid")
    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True)
    valid_sampler = DistributedSampler(valid_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=cfg["batch_size"], sampler=train_sampler, drop_last=True)
    valid_loader = DataLoader(valid_ds, batch_size=512, sampler=valid_sampler)

    model = CRNN(n_classes=cfg["n_classes"], dropout=cfg["dropout"]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg["lr"] * hvd.size())
    # make sure all workers start from the same optimizer state
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    scheduler = torch.optim.lr_scheduler.StepLR(optimizer, step_size=10, gamma=0.3)

    history = []
    best_acc = 0.0
    for epoch in range(cfg["epochs"]):
        train_sampler.set_epoch(epoch)
        train_loss = run_epoch(model, train_loader, optimizer, device, epoch, cfg)
        acc = evaluate(model, valid_loader, device)
        scheduler.step()
        if hvd.rank() == 0:
            print(f"==> epoch {epoch}: train_loss {train_loss:.4f} valid_acc {acc:.4f}")
            history.append({"epoch": epoch, "train_loss": train_loss, "valid_acc": acc})
            if acc > best_acc:
                best_acc = acc
                torch.save({"model": model.state_dict(), "cfg": cfg, "epoch": epoch}, cfg["ckpt"])
    if hvd.rank() == 0:
        with open("kws_history.json", "w") as fh:
            json.dump(history, fh, indent=2)
        print(f"best valid acc {best_acc:.4f}")


if __name__ == "__main__":
    main()
