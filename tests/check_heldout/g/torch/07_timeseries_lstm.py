"""Multi-horizon load forecasting with a seq2one LSTM (electricity dataset), Horovod version.

srun --ntasks-per-node=4 --gpus-per-task=1 python 07_timeseries_lstm.py --csv data/electricity.csv
"""
import argparse
import logging
import os

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import Dataset, DataLoader
from torch.utils.tensorboard import SummaryWriter
import horovod.torch as hvd

logger = logging.getLogger(__name__)


class Windows(Dataset):
    def __init__(self, series, lookback, horizon):
        self.x = torch.tensor(series, dtype=torch.float32)
        self.lookback, self.horizon = lookback, horizon

    def __len__(self):
        return len(self.x) - self.lookback - self.horizon + 1

    def __getitem__(self, i):
        j = i + self.lookback
        return self.x[i:j], self.x[j:j + self.horizon, 0]


class Forecaster(nn.Module):
    def __init__(self, n_feat, hidden, horizon, layers=2):
        super().__init__()
        self.lstm = nn.LSTM(n_feat, hidden, num_layers=layers, batch_first=True, dropout=0.1)
        self.head = nn.Linear(hidden, horizon)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


def load_series(path, val_frac):
    df = pd.read_csv(path, parse_dates=["timestamp"]).sort_values("timestamp")
    df["hour_sin"] = np.sin(2 * np.pi * df.timestamp.dt.hour / 24)
    df["hour_cos"] = np.cos(2 * np.pi * df.timestamp.dt.hour / 24)
    df["dow"] = df.timestamp.dt.dayofweek / 6.0
    arr = df[["load", "temperature", "hour_sin", "hour_cos", "dow"]].values.astype(np.float32)
    cut = int(len(arr) * (1 - val_frac))
    mean, std = arr[:cut].mean(0), arr[:cut].std(0) + 1e-6
    arr = (arr - mean) / std
    return arr[:cut], arr[cut:], (mean, std)


def run_epoch(model, loader, device, optimizer=None):
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
                optimizer.step()
            total += loss.item() * len(x)
            n += len(x)
    return total / n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", default="data/electricity.csv")
    ap.add_argument("--lookback", type=int, default=168)
    ap.add_argument("--horizon", type=int, default=24)
    ap.add_argument("--hidden", type=int, default=128)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=1e-3)
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--patience", type=int, default=5)
    ap.add_argument("--outdir", default="runs/lstm")
    args = ap.parse_args()

    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.WARNING)
    torch.cuda.set_device(hvd.local_rank())
    device = torch.device("cuda")

    train_arr, val_arr, stats = load_series(args.csv, val_frac=0.2)
    train_ds = Windows(train_arr, args.lookback, args.horizon)
    val_ds = Windows(val_arr, args.lookback, args.horizon)
    train_loader = DataLoader(train_ds, batch_size=args.batch, shuffle=True, num_workers=2, drop_last=True)
    val_loader = DataLoader(val_ds, batch_size=512, shuffle=False)

    model = Forecaster(train_arr.shape[1], args.hidden, args.horizon).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(), op=hvd.Sum)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=2)

    writer = SummaryWriter(args.outdir) if hvd.rank() == 0 else None
    best, wait = float("inf"), 0
    for epoch in range(args.epochs):
        tr = run_epoch(model, train_loader, device, optimizer)
        tr = hvd.allreduce(torch.tensor(tr), name="tr_loss").item()
        va = run_epoch(model, val_loader, device)   # full val set on every rank -> same number everywhere
        plateau.step(va)
        logger.info("epoch %d  train_mse %.5f  val_mse %.5f  lr %.2e", epoch, tr, va, optimizer.param_groups[0]["lr"])
        if writer:
            writer.add_scalars("mse", {"train": tr, "val": va}, epoch)
        if va < best:
            best, wait = va, 0
            if hvd.rank() == 0:
                torch.save({"model": model.state_dict(), "stats": stats, "args": vars(args)},
                           os.path.join(args.outdir, "best.pt"))
        else:
            wait += 1
            if wait > args.patience:
                logger.info("early stop at epoch %d", epoch)
                break


if __name__ == "__main__":
    main()
