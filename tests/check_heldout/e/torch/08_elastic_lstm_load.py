"""Elastic Horovod: LSTM forecaster for hourly electricity load (preemptible GPU queue).

    horovodrun -np 4 --min-np 2 --max-np 8 --host-discovery-script ./discover_hosts.sh \
        python 08_elastic_lstm_load.py --csv load_hourly.csv
"""
import argparse
import logging

import numpy as np
import pandas as pd
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, Dataset
import horovod.torch as hvd

log = logging.getLogger("elastic-lstm")
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")

ap = argparse.ArgumentParser()
ap.add_argument("--csv", default="load_hourly.csv")
ap.add_argument("--window", type=int, default=168)      # one week of history
ap.add_argument("--horizon", type=int, default=24)
ap.add_argument("--batch-size", type=int, default=256)
ap.add_argument("--epochs", type=int, default=40)
ap.add_argument("--lr", type=float, default=5e-4)
ap.add_argument("--commit-every", type=int, default=50)
ap.add_argument("--ckpt", default="lstm_load.pt")
args = ap.parse_args()


class Windows(Dataset):
    def __init__(self, series, window, horizon):
        self.s, self.w, self.h = series, window, horizon

    def __len__(self):
        return len(self.s) - self.w - self.h + 1

    def __getitem__(self, i):
        x = self.s[i:i + self.w]
        y = self.s[i + self.w:i + self.w + self.h, 0]
        return torch.from_numpy(x), torch.from_numpy(y)


class Forecaster(nn.Module):
    def __init__(self, n_feat, hidden=128, horizon=24):
        super().__init__()
        self.lstm = nn.LSTM(n_feat, hidden, num_layers=2, batch_first=True, dropout=0.1)
        self.head = nn.Linear(hidden, horizon)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out[:, -1])


hvd.init()
torch.cuda.set_device(hvd.local_rank())

df = pd.read_csv(args.csv, parse_dates=["ts"]).set_index("ts")
feats = np.stack([df["load"].values, df.index.hour.values / 23.0, df.index.dayofweek.values / 6.0], 1)
split = int(0.9 * len(feats))
mu, sd = feats[:split].mean(0), feats[:split].std(0) + 1e-6
feats = ((feats - mu) / sd).astype(np.float32)
train_ds = Windows(feats[:split], args.window, args.horizon)
val_ds = Windows(feats[split - args.window:], args.window, args.horizon)

# ElasticSampler re-partitions the remaining indices whenever the worker set changes
train_sampler = hvd.elastic.ElasticSampler(train_ds, shuffle=True, seed=0)
train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler, num_workers=2)
# validation is small: every worker scores all of it
val_loader = DataLoader(val_ds, batch_size=1024, shuffle=False)

model = Forecaster(feats.shape[1], horizon=args.horizon).cuda()
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
mse = nn.MSELoss()


def validate():
    model.eval()
    se, n = 0.0, 0
    with torch.no_grad():
        for x, y in val_loader:
            pred = model(x.cuda())
            se += ((pred - y.cuda()) ** 2).sum().item()
            n += y.numel()
    return se / n


def run_epoch(state):
    model.train()
    epoch_loss, nb = 0.0, 0
    for batch_idx, (x, y) in enumerate(train_loader):
        state.batch = batch_idx
        x, y = x.cuda(non_blocking=True), y.cuda(non_blocking=True)
        optimizer.zero_grad()
        loss = mse(model(x), y)
        loss.backward()
        optimizer.step()
        state.train_sampler.record_batch(batch_idx, args.batch_size)
        epoch_loss += loss.item()
        nb += 1
        if state.batch % args.commit_every == 0:
            state.commit()
    return hvd.allreduce(torch.tensor(epoch_loss / max(nb, 1)), name="epoch_loss").item()


@hvd.elastic.run
def train(state):
    while state.epoch < args.epochs:
        train_mse = run_epoch(state)
        val_mse = validate()
        if hvd.rank() == 0:
            log.info("epoch %d workers %d train_mse %.4f val_mse %.4f", state.epoch, hvd.size(),
                     train_mse, val_mse)
            torch.save({"model": model.state_dict(), "epoch": state.epoch, "mu": mu, "sd": sd}, args.ckpt)
        state.epoch += 1
        state.batch = 0
        state.train_sampler.set_epoch(state.epoch)
        state.commit()


def on_state_reset():
    # the number of workers changed: rescale the learning rate to the new size
    for group in optimizer.param_groups:
        group["lr"] = args.lr * hvd.size()


state = hvd.elastic.TorchState(model=model, optimizer=optimizer, train_sampler=train_sampler,
                               epoch=0, batch=0)
state.register_reset_callbacks([on_state_reset])
train(state)
