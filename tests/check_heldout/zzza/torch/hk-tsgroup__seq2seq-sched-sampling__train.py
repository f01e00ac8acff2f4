# Seq2seq GRU forecaster with scheduled sampling (Bengio et al. 2015), Horovod version.
# usage: horovodrun -np 4 python train.py --csv data/traffic.csv --column occupancy
import argparse
import math
import os
import random

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import DataLoader, TensorDataset
from torch.utils.data.distributed import DistributedSampler

parser = argparse.ArgumentParser()
parser.add_argument('--csv', type=str, default=None)
parser.add_argument('--column', type=str, default='value')
parser.add_argument('--in-len', type=int, default=96)
parser.add_argument('--out-len', type=int, default=24)
parser.add_argument('--hidden', type=int, default=128)
parser.add_argument('--batch-size', type=int, default=64)
parser.add_argument('--lr', type=float, default=1e-3)
parser.add_argument('--epochs', type=int, default=30)
parser.add_argument('--k', type=float, default=8.0, help='inverse-sigmoid decay constant')
parser.add_argument('--save-dir', type=str, default='./ckpt')
args = parser.parse_args()

hvd.init()
torch.manual_seed(1234)
random.seed(1234 + hvd.rank())
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
device = 'cuda' if torch.cuda.is_available() else 'cpu'


def read_series():
    if args.csv is None:
        t = np.arange(30000)
        return (np.sin(t / 12.0) + 0.1 * np.random.RandomState(0).randn(len(t))).astype('float32')
    import csv
    with open(args.csv) as f:
        return np.array([float(r[args.column]) for r in csv.DictReader(f)], dtype='float32')


def windows(x, a, b):
    n = len(x) - a - b + 1
    idx = np.arange(a + b)[None, :] + np.arange(n)[:, None]
    w = x[idx]
    return torch.from_numpy(w[:, :a, None]), torch.from_numpy(w[:, a:, None])


series = read_series()
n_train = int(0.8 * len(series))
mu, sd = series[:n_train].mean(), series[:n_train].std()
z = (series - mu) / sd
train_set = TensorDataset(*windows(z[:n_train], args.in_len, args.out_len))
test_set = TensorDataset(*windows(z[n_train - args.in_len:], args.in_len, args.out_len))

train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler, drop_last=True)
test_sampler = DistributedSampler(test_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
test_loader = DataLoader(test_set, batch_size=256, sampler=test_sampler)


class Seq2Seq(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.enc = nn.GRU(1, hidden, batch_first=True)
        self.dec = nn.GRUCell(1, hidden)
        self.proj = nn.Linear(hidden, 1)

    def forward(self, src, out_len, tgt=None, tf_prob=0.0):
        _, h = self.enc(src)
        h = h[0]
        inp = src[:, -1]
        outs = []
        for t in range(out_len):
            h = self.dec(inp, h)
            y = self.proj(h)
            outs.append(y)
            if tgt is not None and random.random() < tf_prob:
                inp = tgt[:, t]
            else:
                inp = y
        return torch.stack(outs, 1)


def teacher_forcing_prob(step, k=args.k):
    # inverse sigmoid decay: starts near 1, goes to 0
    return k / (k + math.exp(step / (k * 100)))


model = Seq2Seq(args.hidden).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.named_parameters(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)


def metric_average(val, name):
    return hvd.allreduce(torch.tensor(val), name=name).item()


def smape(pred, true):
    return (200.0 * (pred - true).abs() / (pred.abs() + true.abs() + 1e-8)).mean().item()


global_step = 0
for epoch in range(args.epochs):
    model.train()
    train_sampler.set_epoch(epoch)
    for src, tgt in train_loader:
        src, tgt = src.to(device), tgt.to(device)
        p = teacher_forcing_prob(global_step)
        pred = model(src, args.out_len, tgt, tf_prob=p)
        loss = F.mse_loss(pred, tgt)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        global_step += 1

    model.eval()
    mse, sm, nb = 0.0, 0.0, 0
    with torch.no_grad():
        for src, tgt in test_loader:
            pred = model(src.to(device), args.out_len).cpu()
            mse += F.mse_loss(pred, tgt).item()
            sm += smape(pred * sd + mu, tgt * sd + mu)
            nb += 1
    mse = metric_average(mse / nb, 'val_mse')
    sm = metric_average(sm / nb, 'val_smape')
    if hvd.rank() == 0:
        print('epoch {} tf_prob {:.3f} val_mse {:.4f} val_smape {:.2f}'.format(epoch, p, mse, sm))
        os.makedirs(args.save_dir, exist_ok=True)
        torch.save({'epoch': epoch, 'model': model.state_dict(), 'optimizer': optimizer.state_dict()},
                   os.path.join(args.save_dir, 'seq2seq_%03d.pt' % epoch))
