#!/usr/bin/env python3
"""
Grid search for the next-step return LSTM.

Every (lr, hidden) point is trained on all workers; the global batch is fixed
(GLOBAL_BATCH) so results are comparable across cluster sizes.

    horovodrun -np 4 python grid.py --csv data/spx_daily.csv
"""
import argparse
import itertools
import json
import os
from pathlib import Path

import numpy as np
import torch
from torch import nn
import horovod.torch as hvd

GLOBAL_BATCH = 256
WINDOW = 32


class ReturnLSTM(nn.Module):
    def __init__(self, hidden, layers=2, dropout=0.1):
        super().__init__()
        self.lstm = nn.LSTM(1, hidden, num_layers=layers, batch_first=True, dropout=dropout)
        self.fc = nn.Linear(hidden, 1)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.fc(out[:, -1]).squeeze(-1)


def windows(series, window):
    x = np.lib.stride_tricks.sliding_window_view(series[:-1], window)
    y = series[window:]
    return x[..., None].astype(np.float32), y.astype(np.float32)


def load(csv_path):
    close = np.loadtxt(csv_path, delimiter=",", skiprows=1, usecols=4)
    rets = np.diff(np.log(close))
    rets = (rets - rets.mean()) / rets.std()
    x, y = windows(rets, WINDOW)
    split = int(0.85 * len(x))
    return (x[:split], y[:split]), (x[split:], y[split:])


def my_slice(n, epoch, seed):
    """Same permutation on every worker, then take every size-th index starting at rank."""
    perm = np.random.RandomState(seed + epoch).permutation(n)
    per_worker = n // hvd.size()
    return perm[hvd.rank()::hvd.size()][:per_worker]


def save_if_root(obj, path):
    if hvd.rank() != 0:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    torch.save(obj, path)


def run_point(lr, hidden, train, val, args):
    torch.manual_seed(args.seed)
    model = ReturnLSTM(hidden).to(args.device)
    opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=1e-4)
    opt = hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(opt, root_rank=0)

    xtr, ytr = torch.from_numpy(train[0]).to(args.device), torch.from_numpy(train[1]).to(args.device)
    xva, yva = torch.from_numpy(val[0]).to(args.device), torch.from_numpy(val[1]).to(args.device)
    local_bs = GLOBAL_BATCH // hvd.size()
    loss_fn = nn.MSELoss()
    best, wait, hist = float("inf"), 0, []
    ckpt = Path(args.out) / f"lr{lr:g}_h{hidden}" / "best.pt"

    for epoch in range(args.epochs):
        model.train()
        idx = torch.from_numpy(my_slice(len(xtr), epoch, args.seed)).to(args.device)
        for s in range(0, len(idx) - local_bs + 1, local_bs):
            b = idx[s:s + local_bs]
            opt.zero_grad()
            loss = loss_fn(model(xtr[b]), ytr[b])
            loss.backward()
            nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            opt.step()

        # the validation tail is small: every worker scores all of it, so no reduction is needed
        model.eval()
        with torch.no_grad():
            val_loss = loss_fn(model(xva), yva).item()
        hist.append(val_loss)
        if val_loss < best - 1e-5:
            best, wait = val_loss, 0
            save_if_root({"model": model.state_dict(), "lr": lr, "hidden": hidden, "epoch": epoch}, ckpt)
        else:
            wait += 1
            if wait >= args.patience:
                break
    return best, hist


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--csv", required=True)
    ap.add_argument("--lrs", default="3e-4,1e-3,3e-3")
    ap.add_argument("--hidden", default="32,64")
    ap.add_argument("--epochs", type=int, default=40)
    ap.add_argument("--patience", type=int, default=6)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--out", default="grid_runs")
    args = ap.parse_args()

    hvd.init()
    torch.set_num_threads(max(1, os.cpu_count() // hvd.local_size()))
    if torch.cuda.is_available():
        args.device = torch.device("cuda", hvd.local_rank())
        torch.cuda.set_device(args.device)
    else:
        args.device = torch.device("cpu")

    train, val = load(args.csv)
    grid = itertools.product([float(v) for v in args.lrs.split(",")], [int(v) for v in args.hidden.split(",")])
    table = []
    for lr, hidden in grid:
        best, hist = run_point(lr, hidden, train, val, args)
        table.append({"lr": lr, "hidden": hidden, "best_val_mse": best, "curve": hist})
        if hvd.rank() == 0:
            print(f"lr={lr:g} hidden={hidden}: best val mse {best:.5f} after {len(hist)} epochs", flush=True)
            Path(args.out).mkdir(parents=True, exist_ok=True)
            with open(Path(args.out) / f"lr{lr:g}_h{hidden}.json", "w") as f:
                json.dump(table[-1], f)

    if hvd.rank() == 0:
        print("winner:", min(table, key=lambda r: r["best_val_mse"]))


if __name__ == "__main__":
    main()
