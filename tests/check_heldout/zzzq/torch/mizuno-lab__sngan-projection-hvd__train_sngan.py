"""SNGAN with projection discriminator (Miyato & Koyama 2018), CIFAR-10, horovod data parallel.

horovodrun -np 4 python train_sngan.py --data cifar10.npz --iters 50000
"""
import argparse
import math
import os

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import spectral_norm as SN
import torchvision.utils as vutils
import horovod.torch as hvd

p = argparse.ArgumentParser()
p.add_argument('--data', default='data/cifar10_train.npz')
p.add_argument('--n-classes', type=int, default=10)
p.add_argument('--bs', type=int, default=64)
p.add_argument('--iters', type=int, default=50000)
p.add_argument('--n-dis', type=int, default=5)
p.add_argument('--lr-g', type=float, default=2e-4)
p.add_argument('--lr-d', type=float, default=2e-4)
p.add_argument('--warmup', type=int, default=1000, help='iters of lr warmup after scaling')
p.add_argument('--ema', type=float, default=0.9999)
p.add_argument('--eval-every', type=int, default=1000)
p.add_argument('--save-every', type=int, default=5000)
p.add_argument('--resume', default=None)
p.add_argument('--logdir', default='logs/sngan')
args = p.parse_args()

hvd.init()
torch.manual_seed(0)
if torch.cuda.is_available():
    torch.cuda.set_device(hvd.local_rank())
    dev = torch.device('cuda')
else:
    dev = torch.device('cpu')
world, rank = hvd.size(), hvd.rank()


# ---------------------------------------------------------------- data
def load_npz(path):
    if os.path.exists(path):
        z = np.load(path)
        return z['x'], z['y']
    print('!! %s missing, random data' % path)
    rs = np.random.RandomState(0)
    return (rs.rand(1024, 32, 32, 3) * 255).astype(np.uint8), rs.randint(0, 10, 1024)


X, Y = load_npz(args.data)
X = torch.from_numpy(X).permute(0, 3, 1, 2).float().div(127.5).sub(1.0)
Y = torch.from_numpy(Y).long()


def shard_iterator(epoch_seed=0):
    """same permutation on every worker (same seed), each takes every world-th index"""
    ep = epoch_seed
    while True:
        g = torch.Generator().manual_seed(1000 + ep)
        perm = torch.randperm(len(X), generator=g)
        mine = perm[rank::world]
        for s in range(0, len(mine) - args.bs + 1, args.bs):
            idx = mine[s:s + args.bs]
            yield X[idx], Y[idx]
        ep += 1


# ---------------------------------------------------------------- models
class GBlock(nn.Module):
    def __init__(self, cin, cout, n_classes):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(cin, affine=False)
        self.bn2 = nn.BatchNorm2d(cout, affine=False)
        self.emb1 = nn.Embedding(n_classes, cin * 2)
        self.emb2 = nn.Embedding(n_classes, cout * 2)
        self.c1 = nn.Conv2d(cin, cout, 3, 1, 1)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1)
        self.sc = nn.Conv2d(cin, cout, 1)

    def cbn(self, bn, emb, x, y):
        g, b = emb(y).chunk(2, 1)
        return bn(x) * (1 + g[:, :, None, None]) + b[:, :, None, None]

    def forward(self, x, y):
        h = F.relu(self.cbn(self.bn1, self.emb1, x, y))
        h = F.interpolate(h, scale_factor=2)
        h = self.c1(h)
        h = self.c2(F.relu(self.cbn(self.bn2, self.emb2, h, y)))
        return h + self.sc(F.interpolate(x, scale_factor=2))


class G(nn.Module):
    def __init__(self, nz=128, ch=128, n_classes=10):
        super().__init__()
        self.nz, self.ch = nz, ch
        self.l1 = nn.Linear(nz, 4 * 4 * ch)
        self.blocks = nn.ModuleList([GBlock(ch, ch, n_classes) for _ in range(3)])
        self.out = nn.Sequential(nn.BatchNorm2d(ch), nn.ReLU(), nn.Conv2d(ch, 3, 3, 1, 1), nn.Tanh())

    def forward(self, z, y):
        h = self.l1(z).view(-1, self.ch, 4, 4)
        for b in self.blocks:
            h = b(h, y)
        return self.out(h)


class D(nn.Module):
    def __init__(self, ch=128, n_classes=10):
        super().__init__()
        self.body = nn.Sequential(
            SN(nn.Conv2d(3, ch, 3, 1, 1)), nn.ReLU(), SN(nn.Conv2d(ch, ch, 4, 2, 1)), nn.ReLU(),
            SN(nn.Conv2d(ch, ch, 3, 1, 1)), nn.ReLU(), SN(nn.Conv2d(ch, ch, 4, 2, 1)), nn.ReLU())
        self.lin = SN(nn.Linear(ch, 1))
        self.emb = SN(nn.Embedding(n_classes, ch))

    def forward(self, x, y):
        h = self.body(x).sum(dim=(2, 3))
        return self.lin(h).squeeze(1) + (self.emb(y) * h).sum(1)


netG, netD = G(n_classes=args.n_classes).to(dev), D(n_classes=args.n_classes).to(dev)
netG_ema = G(n_classes=args.n_classes).to(dev).eval()
netG_ema.load_state_dict(netG.state_dict())

# linear scaling of both lrs, warmed up
optG = torch.optim.Adam(netG.parameters(), lr=args.lr_g * world, betas=(0.0, 0.9))
optD = torch.optim.Adam(netD.parameters(), lr=args.lr_d * world, betas=(0.0, 0.9))
warm = lambda it: min(1.0, (it + 1) / args.warmup) if world > 1 else 1.0
schedG = torch.optim.lr_scheduler.LambdaLR(optG, warm)
schedD = torch.optim.lr_scheduler.LambdaLR(optD, warm)
optG = hvd.DistributedOptimizer(optG, named_parameters=netG.named_parameters(), compression=hvd.Compression.fp16)
optD = hvd.DistributedOptimizer(optD, named_parameters=netD.named_parameters(), compression=hvd.Compression.fp16)

start = 0
if args.resume:
    ck = torch.load(args.resume, map_location='cpu')
    netG.load_state_dict(ck['G']); netD.load_state_dict(ck['D']); netG_ema.load_state_dict(ck['G_ema'])
    optG.load_state_dict(ck['optG']); optD.load_state_dict(ck['optD'])
    start = ck['it']
hvd.broadcast_parameters(netG.state_dict(), root_rank=0)
hvd.broadcast_parameters(netD.state_dict(), root_rank=0)
hvd.broadcast_parameters(netG_ema.state_dict(), root_rank=0)
hvd.broadcast_optimizer_state(optG, root_rank=0)
hvd.broadcast_optimizer_state(optD, root_rank=0)


# a fixed random conv net as the "inception" net for a cheap IS-like score
class Judge(nn.Module):
    def __init__(self, n_classes):
        super().__init__()
        torch.manual_seed(42)
        self.f = nn.Sequential(nn.Conv2d(3, 32, 3, 2, 1), nn.ReLU(), nn.Conv2d(32, 64, 3, 2, 1), nn.ReLU(),
                               nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(64, n_classes))

    def forward(self, x):
        return self.f(x)


judge = Judge(args.n_classes).to(dev).eval()


@torch.no_grad()
def is_like_score(n_per_rank=256):
    probs = []
    for _ in range(n_per_rank // 64):
        z = torch.randn(64, netG_ema.nz, device=dev)
        y = torch.randint(0, args.n_classes, (64,), device=dev)
        probs.append(F.softmax(judge(netG_ema(z, y)), 1).cpu())
    probs = hvd.allgather(torch.cat(probs), name='is_probs')  # every rank's samples
    py = probs.mean(0, keepdim=True)
    kl = (probs * (probs.clamp_min(1e-12).log() - py.clamp_min(1e-12).log())).sum(1).mean()
    return math.exp(kl.item())


def set_grad(m, flag):
    for q in m.parameters():
        q.requires_grad_(flag)


if rank == 0:
    os.makedirs(args.logdir, exist_ok=True)
data_it = shard_iterator()
fixed_z = torch.randn(100, 128, generator=torch.Generator().manual_seed(3)).to(dev)
fixed_y = torch.arange(10).repeat_interleave(10).to(dev)
loss_acc = torch.zeros(2)
for it in range(start, args.iters):
    set_grad(netD, True)
    for _ in range(args.n_dis):
        x, y = next(data_it)
        x, y = x.to(dev), y.to(dev)
        z = torch.randn(x.size(0), 128, device=dev)
        with torch.no_grad():
            fake = netG(z, y)
        lossD = F.relu(1 - netD(x, y)).mean() + F.relu(1 + netD(fake, y)).mean()
        optD.zero_grad()
        lossD.backward()
        optD.step()
    set_grad(netD, False)
    z = torch.randn(args.bs, 128, device=dev)
    y = torch.randint(0, args.n_classes, (args.bs,), device=dev)
    lossG = -netD(netG(z, y), y).mean()
    optG.zero_grad()
    lossG.backward()
    optG.step()
    schedG.step(); schedD.step()
    with torch.no_grad():
        for a, b in zip(netG_ema.parameters(), netG.parameters()):
            a.lerp_(b, 1 - args.ema)
        for a, b in zip(netG_ema.buffers(), netG.buffers()):
            a.copy_(b)
    loss_acc += torch.tensor([lossD.item(), lossG.item()])

    if (it + 1) % args.eval_every == 0:
        mean_losses = hvd.allreduce(loss_acc / args.eval_every, name='losses')
        loss_acc.zero_()
        score = is_like_score()
        if rank == 0:
            print('it %d  lossD %.4f lossG %.4f  IS~ %.3f' % (it + 1, mean_losses[0], mean_losses[1], score))
            with torch.no_grad():
                vutils.save_image(netG_ema(fixed_z, fixed_y), os.path.join(args.logdir, 'grid_%06d.png' % (it + 1)),
                                  nrow=10, normalize=True, value_range=(-1, 1))
    if (it + 1) % args.save_every == 0 and rank == 0:
        torch.save({'G': netG.state_dict(), 'D': netD.state_dict(), 'G_ema': netG_ema.state_dict(),
                    'optG': optG.state_dict(), 'optD': optD.state_dict(), 'it': it + 1},
                   os.path.join(args.logdir, 'ckpt_%06d.pt' % (it + 1)))
