"""
Molecular property regression (HOMO / LUMO gap etc.) with a small MPNN on packed graphs.
Distributed with Horovod.  horovodrun -np 4 python train.py --data qm9_props.npz --target 0
"""
import argparse
import math
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, Dataset, random_split
from torch.utils.data.distributed import DistributedSampler
import horovod.torch as hvd


def get_args():
    parser = argparse.ArgumentParser()
    parser.add_argument('--data', default='data/qm9_props.npz')
    parser.add_argument('--target', type=int, default=0, help='column of y to fit')
    parser.add_argument('--cutoff', type=float, default=4.5)
    parser.add_argument('--hidden', type=int, default=96)
    parser.add_argument('--depth', type=int, default=4)
    parser.add_argument('--batch_size', type=int, default=32)
    parser.add_argument('--accum_steps', type=int, default=2, help='gradient accumulation')
    parser.add_argument('--lr', type=float, default=3e-4)
    parser.add_argument('--epochs', type=int, default=60)
    parser.add_argument('--val_frac', type=float, default=0.1)
    parser.add_argument('--save_dir', default='checkpoints')
    parser.add_argument('--seed', type=int, default=0)
    return parser.parse_args()


class QM9Props(Dataset):
    def __init__(self, path, target):
        d = np.load(path)
        self.Z, self.R = d['Z'], d['R'].astype(np.float32)
        self.y = d['y'][:, target].astype(np.float32)
        self.ptr = np.concatenate([[0], np.cumsum(d['N'])])

    def __len__(self):
        return len(self.y)

    def __getitem__(self, i):
        a, b = self.ptr[i], self.ptr[i + 1]
        return self.Z[a:b], self.R[a:b], self.y[i]


def collate_mols(batch):
    Z = np.concatenate([b[0] for b in batch])
    R = np.concatenate([b[1] for b in batch])
    n = [len(b[0]) for b in batch]
    return (torch.as_tensor(Z, dtype=torch.long), torch.as_tensor(R),
            torch.repeat_interleave(torch.arange(len(batch)), torch.tensor(n)),
            torch.tensor([b[2] for b in batch]))


def build_edges(R, mol, cutoff):
    same = mol.unsqueeze(0) == mol.unsqueeze(1)
    D = torch.cdist(R, R)
    adj = same & (D < cutoff) & (D > 0)
    src, dst = adj.nonzero(as_tuple=True)
    return src, dst, D[src, dst]


class MPNN(nn.Module):
    def __init__(self, hidden, depth, cutoff, n_gauss=32):
        super().__init__()
        self.cutoff = cutoff
        self.register_buffer('centers', torch.linspace(0, cutoff, n_gauss))
        self.embed = nn.Embedding(20, hidden)
        self.edge_nets = nn.ModuleList([nn.Linear(n_gauss, hidden * hidden // 8) for _ in range(depth)])
        self.mix = nn.ModuleList([nn.Linear(hidden // 8 * 8, hidden) for _ in range(depth)])
        self.gru = nn.GRUCell(hidden, hidden)
        self.hidden = hidden
        self.readout = nn.Sequential(nn.Linear(2 * hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, Z, R, mol):
        n_mol = int(mol.max()) + 1
        src, dst, d = build_edges(R, mol, self.cutoff)
        g = torch.exp(-4.0 * (d.unsqueeze(-1) - self.centers) ** 2)
        h = self.embed(Z)
        h0 = h
        for enet, mix in zip(self.edge_nets, self.mix):
            W = enet(g).view(-1, self.hidden // 8, self.hidden)
            m = torch.bmm(W, h[src].unsqueeze(-1)).squeeze(-1)          # (E, hidden/8)
            m = m.repeat(1, 8)
            agg = torch.zeros_like(h).index_add_(0, dst, mix(m))
            h = self.gru(F.relu(agg), h)
        pooled = torch.zeros(n_mol, 2 * self.hidden, device=R.device)
        pooled.index_add_(0, mol, torch.cat([h, h0], -1))
        return self.readout(pooled).squeeze(-1)


def metric_average(val, name):
    t = torch.tensor(val)
    return hvd.allreduce(t, name=name).item()


def main():
    args = get_args()
    hvd.init()
    torch.manual_seed(args.seed)
    if torch.cuda.is_available():
        torch.cuda.set_device(hvd.local_rank())
        torch.cuda.manual_seed(args.seed)
    device = 'cuda' if torch.cuda.is_available() else 'cpu'

    ds = QM9Props(args.data, args.target)
    n_val = int(len(ds) * args.val_frac)
    train_ds, val_ds = random_split(ds, [len(ds) - n_val, n_val], generator=torch.Generator().manual_seed(42))
    y_train = torch.tensor([ds.y[i] for i in train_ds.indices])
    mu, sigma = y_train.mean().item(), y_train.std().item()

    train_sampler = DistributedSampler(train_ds, num_replicas=hvd.size(), rank=hvd.rank())
    val_sampler = DistributedSampler(val_ds, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train_ds, batch_size=args.batch_size, sampler=train_sampler, collate_fn=collate_mols)
    val_loader = DataLoader(val_ds, batch_size=args.batch_size, sampler=val_sampler, collate_fn=collate_mols)

    model = MPNN(args.hidden, args.depth, args.cutoff).to(device)
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr * hvd.size())
    optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
    hvd.broadcast_parameters(model.state_dict(), root_rank=0)
    hvd.broadcast_optimizer_state(optimizer, root_rank=0)

    best_mae = math.inf
    for epoch in range(1, args.epochs + 1):
        model.train()
        train_sampler.set_epoch(epoch)
        start = time.time()
        optimizer.zero_grad()
        for i, (Z, R, mol, y) in enumerate(train_loader):
            Z, R, mol, y = Z.to(device), R.to(device), mol.to(device), y.to(device)
            pred = model(Z, R, mol)
            loss = F.mse_loss(pred, (y - mu) / sigma) / args.accum_steps
            loss.backward()
            if (i + 1) % args.accum_steps == 0:
                optimizer.step()
                optimizer.zero_grad()

        model.eval()
        abs_err, count = 0.0, 0
        with torch.no_grad():
            for Z, R, mol, y in val_loader:
                pred = model(Z.to(device), R.to(device), mol.to(device)) * sigma + mu
                abs_err += (pred.cpu() - y).abs().sum().item()
                count += len(y)
        val_mae = metric_average(abs_err / max(count, 1), 'val_mae')

        if hvd.rank() == 0:
            print('epoch %d  val MAE %.4f  (%.1fs)' % (epoch, val_mae, time.time() - start))
            if val_mae < best_mae:
                best_mae = val_mae
                os.makedirs(args.save_dir, exist_ok=True)
                torch.save({'epoch': epoch, 'state_dict': model.state_dict(), 'mu': mu, 'sigma': sigma},
                           os.path.join(args.save_dir, 'best.pt'))


if __name__ == '__main__':
    main()
