"""
Fourier Neural Operator for 2-D Darcy flow (a(x,y) -> u(x,y)), Horovod data parallel.

Data: the piececonst_r421 files converted to .npz ("coeff", "sol"), subsampled with --sub.
Run:  mpirun -np 4 python train_fno.py --train data/darcy_train.npz --test data/darcy_test.npz
"""
import argparse
import os
import time

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
import horovod.torch as hvd
from torch.utils.data import TensorDataset, DataLoader
from torch.utils.data.distributed import DistributedSampler

parser = argparse.ArgumentParser()
parser.add_argument('--train', type=str, default='data/darcy_train.npz')
parser.add_argument('--test', type=str, default='data/darcy_test.npz')
parser.add_argument('--ntrain', type=int, default=1000)
parser.add_argument('--ntest', type=int, default=200)
parser.add_argument('--sub', type=int, default=5)
parser.add_argument('--modes', type=int, default=12)
parser.add_argument('--width', type=int, default=32)
parser.add_argument('--batch-size', type=int, default=20)
parser.add_argument('--lr', type=float, default=1e-3)
parser.add_argument('--epochs', type=int, default=500)
parser.add_argument('--warmup', type=int, default=5, help='linear warmup epochs')
parser.add_argument('--step-size', type=int, default=100)
parser.add_argument('--gamma', type=float, default=0.5)
parser.add_argument('--save-dir', type=str, default='./fno_ckpt')
parser.add_argument('--no-cuda', action='store_true')
args = parser.parse_args()

hvd.init()
torch.manual_seed(0)
args.cuda = not args.no_cuda and torch.cuda.is_available()
if args.cuda:
    torch.cuda.set_device(hvd.local_rank())
device = torch.device('cuda' if args.cuda else 'cpu')


class SpectralConv2d(nn.Module):
    def __init__(self, cin, cout, m1, m2):
        super().__init__()
        scale = 1.0 / (cin * cout)
        self.m1, self.m2 = m1, m2
        # real (..., 2) storage: Horovod cannot allreduce/broadcast complex tensors
        self.w1 = nn.Parameter(scale * torch.rand(cin, cout, m1, m2, 2))
        self.w2 = nn.Parameter(scale * torch.rand(cin, cout, m1, m2, 2))

    def forward(self, x):
        b, _, h, w = x.shape
        xf = torch.fft.rfft2(x)
        w1, w2 = torch.view_as_complex(self.w1), torch.view_as_complex(self.w2)
        out = torch.zeros(b, w1.shape[1], h, w // 2 + 1, dtype=torch.cfloat, device=x.device)
        out[:, :, :self.m1, :self.m2] = torch.einsum('bixy,ioxy->boxy', xf[:, :, :self.m1, :self.m2], w1)
        out[:, :, -self.m1:, :self.m2] = torch.einsum('bixy,ioxy->boxy', xf[:, :, -self.m1:, :self.m2], w2)
        return torch.fft.irfft2(out, s=(h, w))


class FNO2d(nn.Module):
    def __init__(self, modes, width):
        super().__init__()
        self.lift = nn.Linear(3, width)
        self.spec = nn.ModuleList([SpectralConv2d(width, width, modes, modes) for _ in range(4)])
        self.pw = nn.ModuleList([nn.Conv2d(width, width, 1) for _ in range(4)])
        self.proj = nn.Sequential(nn.Linear(width, 128), nn.GELU(), nn.Linear(128, 1))

    def forward(self, a):
        b, h, w = a.shape
        gx = torch.linspace(0, 1, h, device=a.device).view(1, h, 1).expand(b, h, w)
        gy = torch.linspace(0, 1, w, device=a.device).view(1, 1, w).expand(b, h, w)
        x = self.lift(torch.stack([a, gx, gy], dim=-1)).permute(0, 3, 1, 2)
        for i, (s, p) in enumerate(zip(self.spec, self.pw)):
            x = s(x) + p(x)
            if i < 3:
                x = F.gelu(x)
        return self.proj(x.permute(0, 2, 3, 1)).squeeze(-1)


def rel_l2(pred, y):
    diff = torch.norm(pred.reshape(len(y), -1) - y.reshape(len(y), -1), dim=1)
    return diff / torch.norm(y.reshape(len(y), -1), dim=1)


def load(path, n):
    d = np.load(path)
    a = torch.tensor(d['coeff'][:n, ::args.sub, ::args.sub], dtype=torch.float32)
    u = torch.tensor(d['sol'][:n, ::args.sub, ::args.sub], dtype=torch.float32)
    return TensorDataset(a, u)


train_set, test_set = load(args.train, args.ntrain), load(args.test, args.ntest)
train_sampler = DistributedSampler(train_set, num_replicas=hvd.size(), rank=hvd.rank())
test_sampler = DistributedSampler(test_set, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
train_loader = DataLoader(train_set, batch_size=args.batch_size, sampler=train_sampler)
test_loader = DataLoader(test_set, batch_size=args.batch_size, sampler=test_sampler)

model = FNO2d(args.modes, args.width).to(device)
optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, weight_decay=1e-4)
optimizer = hvd.DistributedOptimizer(optimizer, named_parameters=model.named_parameters())
hvd.broadcast_parameters(model.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optimizer, root_rank=0)

warmup = torch.optim.lr_scheduler.LinearLR(optimizer, start_factor=0.1, total_iters=args.warmup_epochs)
decay = torch.optim.lr_scheduler.StepLR(optimizer, step_size=args.step_size, gamma=args.gamma)
scheduler = torch.optim.lr_scheduler.SequentialLR(optimizer, [warmup, decay], milestones=[args.warmup_epochs])

os.makedirs(args.save_dir, exist_ok=True)
for epoch in range(args.epochs):
    train_sampler.set_epoch(epoch)
    model.train()
    t0 = time.time()
    for a, u in train_loader:
        a, u = a.to(device), u.to(device)
        optimizer.zero_grad()
        loss = rel_l2(model(a), u).mean()
        loss.backward()
        optimizer.step()
    scheduler.step()

    model.eval()
    err_sum, count = 0.0, 0
    with torch.no_grad():
        for a, u in test_loader:
            a, u = a.to(device), u.to(device)
            err_sum += rel_l2(model(a), u).sum().item()
            count += len(u)
    err_sum = hvd.allreduce(torch.tensor(err_sum), name='err_sum', op=hvd.Sum).item()
    count = hvd.allreduce(torch.tensor(count), name='count', op=hvd.Sum).item()
    if hvd.rank() == 0:
        print(f'epoch {epoch:4d}  test rel-L2 {err_sum / count:.5f}  ({time.time() - t0:.1f}s)', flush=True)

    if epoch % 50 == 0 or epoch == args.epochs - 1:
        torch.save({'epoch': epoch, 'model': model.state_dict(), 'optimizer': optimizer.state_dict()},
                   os.path.join(args.save_dir, 'fno_darcy.pt'))
