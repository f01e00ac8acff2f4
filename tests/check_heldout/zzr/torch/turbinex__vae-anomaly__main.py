# VAE anomaly detector for wind-turbine SCADA data (10-min records, 24 channels)
# distributed with horovod:  horovodrun -np 4 python main.py --data scada.npz
import argparse
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.data as tud
import horovod.torch as hvd

parser = argparse.ArgumentParser(description='SCADA VAE')
parser.add_argument('--data', default='data/scada.npz')
parser.add_argument('--batch-size', type=int, default=64)
parser.add_argument('--epochs', type=int, default=30)
parser.add_argument('--lr', type=float, default=5e-4)
parser.add_argument('--beta', type=float, default=0.5, help='KL weight')
parser.add_argument('--z-dim', type=int, default=8)
parser.add_argument('--k-sigma', type=float, default=3.0)
parser.add_argument('--save', default='checkpoints/vae.pt')
parser.add_argument('--no-cuda', action='store_true')
args = parser.parse_args()

hvd.init()
use_cuda = torch.cuda.is_available() and not args.no_cuda
device = torch.device('cuda' if use_cuda else 'cpu')
torch.manual_seed(42)


class VAE(nn.Module):
    def __init__(self, n_in, z_dim, hidden=64):
        super(VAE, self).__init__()
        self.fc1 = nn.Linear(n_in, hidden)
        self.mu = nn.Linear(hidden, z_dim)
        self.logvar = nn.Linear(hidden, z_dim)
        self.fc2 = nn.Linear(z_dim, hidden)
        self.out = nn.Linear(hidden, n_in)

    def forward(self, x):
        h = F.relu(self.fc1(x))
        mu, logvar = self.mu(h), self.logvar(h)
        z = mu + torch.randn_like(mu) * torch.exp(0.5 * logvar)
        return self.out(F.relu(self.fc2(z))), mu, logvar


def vae_loss(recon, x, mu, logvar, beta):
    rec = F.mse_loss(recon, x, reduction='none').sum(1)
    kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=1)
    return (rec + beta * kl).mean(), rec


data = np.load(args.data)
x_train = torch.tensor(data['x_train'], dtype=torch.float32)
x_test = torch.tensor(data['x_test'], dtype=torch.float32)
y_test = torch.tensor(data['y_test'], dtype=torch.long)

train_set = tud.TensorDataset(x_train)
train_sampler = tud.distributed.DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
train_loader = tud.DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler)
test_set = tud.TensorDataset(x_test, y_test)
test_sampler = tud.distributed.DistributedSampler(test_set, num_replicas=hvd.size(), rank=hvd.rank(),
                                                  shuffle=False)
test_loader = tud.DataLoader(test_set, batch_size=256, sampler=test_sampler)

model = VAE(x_train.shape[1], args.z_dim).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

# linear warmup then cosine decay
total_epochs = args.epochs
warmup = args.warmup_epochs
scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda e: (e + 1) / warmup if e < warmup else
    0.5 * (1 + math.cos(math.pi * (e - warmup) / max(1, total_epochs - warmup))))


def metric_sum(val, name):
    return hvd.allreduce(torch.tensor(val, dtype=torch.float64), op=hvd.Sum, name=name).item()


def train(epoch):
    model.train()
    train_sampler.set_epoch(epoch)
    loss_sum, n = 0.0, 0
    for (x,) in train_loader:
        x = x.to(device)
        optimizer.zero_grad()
        recon, mu, logvar = model(x)
        loss, _ = vae_loss(recon, x, mu, logvar, args.beta)
        loss.backward()
        optimizer.step()
        loss_sum += loss.item() * len(x)
        n += len(x)
    scheduler.step()
    return metric_sum(loss_sum, 'train_loss') / metric_sum(n, 'train_n')


def train_error_stats():
    """mean / std of reconstruction error over the whole training set (all ranks)."""
    model.eval()
    s, ss, n = 0.0, 0.0, 0
    with torch.no_grad():
        for (x,) in train_loader:
            recon, mu, logvar = model(x.to(device))
            err = ((recon - x.to(device)) ** 2).sum(1)
            s += err.sum().item()
            ss += (err ** 2).sum().item()
            n += len(x)
    s, ss, n = metric_sum(s, 'err_s'), metric_sum(ss, 'err_ss'), metric_sum(n, 'err_n')
    mean = s / n
    return mean, math.sqrt(max(ss / n - mean ** 2, 0.0))


def test(threshold):
    model.eval()
    tp = fp = fn = 0
    with torch.no_grad():
        for x, y in test_loader:
            x = x.to(device)
            recon, _, _ = model(x)
            pred = (((recon - x) ** 2).sum(1) > threshold).long().cpu()
            tp += int(((pred == 1) & (y == 1)).sum())
            fp += int(((pred == 1) & (y == 0)).sum())
            fn += int(((pred == 0) & (y == 1)).sum())
    tp, fp, fn = metric_sum(tp, 'tp'), metric_sum(fp, 'fp'), metric_sum(fn, 'fn')
    precision = tp / max(tp + fp, 1)
    recall = tp / max(tp + fn, 1)
    return precision, recall, 2 * precision * recall / max(precision + recall, 1e-9)


for epoch in range(1, args.epochs + 1):
    t0 = time.time()
    loss = train(epoch)
    if hvd.rank() == 0:
        print('epoch {:3d} | loss {:.4f} | lr {:.2e} | {:.1f}s'.format(
            epoch, loss, scheduler.get_last_lr()[0], time.time() - t0))
        os.makedirs(os.path.dirname(args.save) or '.', exist_ok=True)
        torch.save({'epoch': epoch, 'model': model.state_dict(),
                    'optimizer': optimizer.state_dict()}, args.save)

mu_err, sd_err = train_error_stats()
thr = mu_err + args.k_sigma * sd_err
p, r, f1 = test(thr)
if hvd.rank() == 0:
    print('threshold {:.4f}  precision {:.3f}  recall {:.3f}  F1 {:.3f}'.format(thr, p, r, f1))
