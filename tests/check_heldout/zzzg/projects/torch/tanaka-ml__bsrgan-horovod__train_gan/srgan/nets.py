import torch
import torch.nn as nn
from torch.nn.utils import spectral_norm as sn


class RRDBLite(nn.Module):
    def __init__(self, nf=32, n=4):
        super().__init__()
        self.inp = nn.Conv2d(3, nf, 3, 1, 1)
        self.body = nn.Sequential(*[nn.Sequential(nn.Conv2d(nf, nf, 3, 1, 1), nn.LeakyReLU(0.2)) for _ in range(n)])
        self.up = nn.Sequential(nn.Conv2d(nf, nf * 16, 3, 1, 1), nn.PixelShuffle(4), nn.LeakyReLU(0.2))
        self.out = nn.Conv2d(nf, 3, 3, 1, 1)

    def forward(self, x):
        h = self.inp(x)
        return self.out(self.up(h + self.body(h)))


class UNetDisc(nn.Module):
    def __init__(self, nf=32):
        super().__init__()
        self.d1 = sn(nn.Conv2d(3, nf, 4, 2, 1))
        self.d2 = sn(nn.Conv2d(nf, nf * 2, 4, 2, 1))
        self.u1 = sn(nn.Conv2d(nf * 2, nf, 3, 1, 1))
        self.out = nn.Conv2d(nf, 1, 3, 1, 1)

    def forward(self, x):
        a = nn.functional.leaky_relu(self.d1(x), 0.2)
        b = nn.functional.leaky_relu(self.d2(a), 0.2)
        u = nn.functional.interpolate(b, scale_factor=2)
        return self.out(nn.functional.leaky_relu(self.u1(u), 0.2) + a)


class PerceptualLoss(nn.Module):
    def __init__(self, vgg_path, layer_weights=(0.1, 0.1, 1.0)):
        super().__init__()
        self.blocks = nn.ModuleList([
            nn.Sequential(nn.Conv2d(3, 64, 3, 1, 1), nn.ReLU()),
            nn.Sequential(nn.Conv2d(64, 64, 3, 1, 1), nn.ReLU(), nn.MaxPool2d(2)),
            nn.Sequential(nn.Conv2d(64, 128, 3, 1, 1), nn.ReLU())])
        self.blocks.load_state_dict(torch.load(vgg_path, map_location="cpu"))
        self.requires_grad_(False)
        self.w = layer_weights

    def forward(self, x, y):
        loss = 0.0
        for blk, w in zip(self.blocks, self.w):
            x, y = blk(x), blk(y)
            loss = loss + w * nn.functional.l1_loss(x, y)
        return loss
