import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils import spectral_norm as sn


class CondBN(nn.Module):
    def __init__(self, c, cond_dim):
        super().__init__()
        self.bn = nn.BatchNorm2d(c, affine=False)
        self.gain = sn(nn.Linear(cond_dim, c))
        self.bias = sn(nn.Linear(cond_dim, c))

    def forward(self, x, y):
        return self.bn(x) * (1 + self.gain(y)[..., None, None]) + self.bias(y)[..., None, None]


class GBlock(nn.Module):
    def __init__(self, cin, cout, cond_dim):
        super().__init__()
        self.bn1, self.bn2 = CondBN(cin, cond_dim), CondBN(cout, cond_dim)
        self.c1, self.c2 = sn(nn.Conv2d(cin, cout, 3, 1, 1)), sn(nn.Conv2d(cout, cout, 3, 1, 1))
        self.sc = sn(nn.Conv2d(cin, cout, 1))

    def forward(self, x, y):
        h = F.interpolate(F.relu(self.bn1(x, y)), scale_factor=2)
        h = self.c2(F.relu(self.bn2(self.c1(h), y)))
        return h + self.sc(F.interpolate(x, scale_factor=2))


class Generator(nn.Module):
    def __init__(self, args):
        super().__init__()
        ch, self.ch = args.G_ch * 4, args.G_ch * 4
        self.shared = nn.Embedding(args.n_classes, 128)
        self.linear = sn(nn.Linear(args.dim_z, ch * 16))
        self.blocks = nn.ModuleList([GBlock(ch, ch, 128 + args.dim_z) for _ in range(3)])
        self.out = nn.Sequential(nn.BatchNorm2d(ch), nn.ReLU(), sn(nn.Conv2d(ch, 3, 3, 1, 1)), nn.Tanh())

    def forward(self, z, y):
        cond = torch.cat([self.shared(y), z], 1)
        h = self.linear(z).view(z.size(0), self.ch, 4, 4)
        for b in self.blocks:
            h = b(h, cond)
        return self.out(h)


class Discriminator(nn.Module):
    def __init__(self, args):
        super().__init__()
        ch = args.D_ch
        self.body = nn.Sequential(sn(nn.Conv2d(3, ch, 3, 1, 1)), nn.ReLU(), sn(nn.Conv2d(ch, ch * 2, 4, 2, 1)),
                                  nn.ReLU(), sn(nn.Conv2d(ch * 2, ch * 4, 4, 2, 1)), nn.ReLU(),
                                  sn(nn.Conv2d(ch * 4, ch * 4, 4, 2, 1)), nn.ReLU())
        self.linear = sn(nn.Linear(ch * 4, 1))
        self.embed = sn(nn.Embedding(args.n_classes, ch * 4))

    def features(self, x):
        return self.body(x).sum([2, 3])

    def forward(self, x, y):
        h = self.features(x)
        return self.linear(h).squeeze(1) + (self.embed(y) * h).sum(1)
