"""Seq2seq LSTM traffic-speed forecasting (METR-LA style sensor series) with Horovod.

Each sample is 12 past steps of all sensors -> next 12 steps. Data: a .npz with `speed` (T x S).
Run: horovodrun -np 4 python train.py --data data/metr_la.npz
"""
import argparse
import logging
import os
import time

import numpy as np
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler

import horovod.torch as hvd

log = logging.getLogger("traffic")


class Windows(Dataset):
    def __init__(self, series, start, end, t_in=12, t_out=12, mean=None, std=None):
        self.x = series
        self.idx = np.arange(start, end - t_in - t_out + 1)
        self.t_in, self.t_out = t_in, t_out
        self.mean, self.std = mean, std

    def __len__(self):
        return len(self.idx)

    def __getitem__(self, i):
        s = self.idx[i]
        past = (self.x[s:s + self.t_in] - self.mean) / self.std
        fut = self.x[s + self.t_in:s + self.t_in + self.t_out]
        return torch.from_numpy(past.astype(np.float32)), torch.from_numpy(fut.astype(np.float32))


class Seq2Seq(nn.Module):
    def __init__(self, n_sensors, hidden=256, t_out=12):
        super().__init__()
        self.enc = nn.LSTM(n_sensors, hidden, num_layers=2, batch_first=True, dropout=0.1)
        self.dec = nn.LSTMCell(n_sensors, hidden)
        self.out = nn.Linear(hidden, n_sensors)
        self.t_out = t_out

    def forward(self, x, mean, std):
        _, (h, c) = self.enc(x)
        h, c = h[-1], c[-1]
        y = x[:, -1]
        outs = []
        for _ in range(self.t_out):
            h, c = self.dec(y, (h, c))
            y = self.out(h)
            outs.append(y)
        return torch.stack(outs, 1) * std + mean


def masked_mae_sums(pred, target):
    mask = target > 0
    return torch.stack([((pred - target).abs() * mask).sum(), mask.sum().float()])


def parse():
    p = argparse.ArgumentParser()
    p.add_argument("--data", default="data/metr_la.npz")
    p.add_argument("--batch-size", type=int, default=64)
    p.add_argument("--epochs", type=int, default=100)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--clip", type=float, default=5.0)
    p.add_argument("--patience", type=int, default=10, help="ReduceLROnPlateau patience")
    p.add_argument("--ckpt", default="checkpoints/seq2seq.pt")
    p.add_argument("--no-fp16-allreduce", action="store_true")
    return p.parse_args()


def main():
    args = parse()
    hvd.init()
    logging.basicConfig(level=logging.INFO if hvd.rank() == 0 else logging.ERROR,
                        format="%(asctime)s %(message)s")
    if torch.cuda.is_available():
        device = torch.device(f"cuda:{hvd.local_rank()}")
        torch.cuda.set_device(device)
    else:
        device = torch.device("cpu")

    speed = np.load(args.data)["speed"]
    n = len(speed)
    n_train, n_val = int(0.7 * n), int(0.1 * n)
    mean, std = speed[:n_train].mean(), speed[:n_train].std()
    train_set = Windows(speed, 0, n_train, mean=mean, std=std)
    val_set = Windows(speed, n_train, n_train + n_val, mean=mean, std=std)
    train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=True, seed=7)
    val_sampler = DistributedSampler(val_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, drop_last=True)
    val_loader = DataLoader(val_set, batch_size=256, sampler=val_sampler)

    model = Seq2Seq(speed.shape[1]).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    compression = hvd.Compression.none if args.no_fp16_allreduce else hvd.Compression.fp16
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters(),
                                         compression=compression)
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)
    plateau = torch.optim.lr_scheduler.ReduceLROnPlateau(optimizer, factor=0.5, patience=args.patience)

    m, s = torch.tensor(mean, device=device), torch.tensor(std, device=device)
    best = float("inf")
    for epoch in range(args.epochs):
        train_sampler.set_epoch(epoch)
        model.train()
        t0 = time.time()
        for x, y in train_loader:
            x, y = x.to(device), y.to(device)
            optimizer.zero_grad()
            sums = masked_mae_sums(model(x, m, s), y)
            loss = sums[0] / sums[1].clamp_min(1)
            loss.backward()
            optimizer.synchronize()
            nn.utils.clip_grad_norm_(model.parameters(), args.clip)
            with optimizer.skip_synchronize():
                optimizer.step()

        model.eval()
        tot = torch.zeros(2, device=device)
        with torch.no_grad():
            for x, y in val_loader:
                tot += masked_mae_sums(model(x.to(device), m, s), y.to(device))
        tot = hvd.allreduce(tot, name="val_mae_sums", op=hvd.Sum)
        val_mae = (tot[0] / tot[1]).item()
        plateau.step(val_mae)
        log.info("epoch %d val MAE %.3f lr %.2e (%.0fs)", epoch, val_mae, optimizer.param_groups[0]["lr"],
                 time.time() - t0)
        if val_mae < best:
            best = val_mae
            if hvd.rank() == 0:
                os.makedirs(os.path.dirname(args.ckpt), exist_ok=True)
                torch.save({"epoch": epoch, "model": model.state_dict(), "mean": mean, "std": std}, args.ckpt)


if __name__ == "__main__":
    main()
