"""Day-ahead electricity load forecasting with an LSTM encoder, multi-GPU via Horovod.

Reads an hourly CSV (timestamp, load_mw, temp_c, ...), builds sliding windows of
`--lookback` hours and predicts the next `--horizon` hours.
"""
import argparse
import json
import os
import time
from dataclasses import dataclass, asdict

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


@dataclass
class Config:
    csv: str = "data/load_hourly.csv"
    target: str = "load_mw"
    lookback: int = 168
    horizon: int = 24
    val_days: int = 60
    hidden: int = 128
    layers: int = 2
    dropout: float = 0.1
    batch_size: int = 256
    lr: float = 5e-4
    epochs: int = 50
    patience: int = 6
    out_dir: str = "checkpoints/lstm"


def load_series(path, target):
    with open(path) as f:
        header = f.readline().strip().split(",")
    raw = np.genfromtxt(path, delimiter=",", skip_header=1, dtype=np.float32)
    cols = [i for i, name in enumerate(header) if name != "timestamp"]
    data = raw[:, cols]
    t_idx = [header[i] for i in cols].index(target)
    return data, t_idx


class WindowDataset(Dataset):
    def __init__(self, data, t_idx, lookback, horizon):
        self.data = torch.from_numpy(data)
        self.t_idx = t_idx
        self.lookback = lookback
        self.horizon = horizon

    def __len__(self):
        return len(self.data) - self.lookback - self.horizon + 1

    def __getitem__(self, i):
        x = self.data[i:i + self.lookback]
        y = self.data[i + self.lookback:i + self.lookback + self.horizon, self.t_idx]
        return x, y


class LSTMForecaster(nn.Module):
    def __init__(self, n_features, hidden, layers, horizon, dropout):
        super().__init__()
        self.lstm = nn.LSTM(n_features, hidden, layers, batch_first=True, dropout=dropout)
        self.proj = nn.Sequential(nn.Linear(hidden, hidden), nn.GELU(), nn.Linear(hidden, horizon))

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.proj(out[:, -1])


def run_epoch(model, loader, optimizer=None, device="cpu"):
    train = optimizer is not None
    model.train(train)
    total, n = 0.0, 0
    with torch.set_grad_enabled(train):
        for x, y in loader:
            x, y = x.to(device), y.to(device)
            loss = nn.functional.mse_loss(model(x), y)
            if train:
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(model.parameters(), 1.0)
                optimizer.step()
            total += loss.item() * len(x)
            n += len(x)
    return total / max(n, 1)


def main():
    parser = argparse.ArgumentParser()
    for k, v in asdict(Config()).items():
        parser.add_argument("--" + k.replace("_", "-"), type=type(v), default=v)
    cfg = Config(**vars(parser.parse_args()))

    hvd.init()
    torch.manual_seed(42)
    device = "cpu"
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        device = "cuda"

    data, t_idx = load_series(cfg.csv, cfg.target)
    split = len(data) - cfg.val_days * 24
    mean, std = data[:split].mean(0), data[:split].std(0) + 1e-6
    data = (data - mean) / std
    train_ds = WindowDataset(data[:split], t_idx, cfg.lookback, cfg.horizon)
    val_ds = WindowDataset(data[split - cfg.lookback:], t_idx, cfg.lookback, cfg.horizon)

    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.local_rank(), shuffle=True)
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.local_rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=cfg.batch_size, sampler=train_sampler, num_workers=2, pin_memory=True)
    val_loader = DataLoader(val_ds, batch_size=cfg.batch_size, sampler=val_sampler)

    model = LSTMForecaster(data.shape[1], cfg.hidden, cfg.layers, cfg.horizon, cfg.dropout).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=cfg.lr * hvd.size())
    scheduler = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=2)

    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())

    if hvd.rank() == 0:
        os.makedirs(cfg.out_dir, exist_ok=True)
        with open(os.path.join(cfg.out_dir, "config.json"), "w") as f:
            json.dump(asdict(cfg), f, indent=2)

    best, wait = float("inf"), 0
    for epoch in range(cfg.epochs):
        t0 = time.time()
        train_sampler.set_epoch(epoch)
        train_loss = run_epoch(model, train_loader, optimizer, device)
        val_loss = run_epoch(model, val_loader, device=device)
        scheduler.step(val_loss)

        if val_loss < best:
            best, wait = val_loss, 0
            if hvd.rank() == 0:
                torch.save({"model": model.state_dict(), "epoch": epoch, "val_mse": val_loss,
                            "mean": mean, "std": std}, os.path.join(cfg.out_dir, "best.pt"))
        else:
            wait += 1
        if hvd.rank() == 0:
            print(f"epoch {epoch:3d} | train {train_loss:.4f} | val {val_loss:.4f} | best {best:.4f} "
                  f"| {time.time() - t0:.0f}s", flush=True)
        if wait >= cfg.patience:
            break


if __name__ == "__main__":
    main()
