import torch
from torch import nn


def down(cin, cout, norm=True):
    layers = [nn.Conv2d(cin, cout, 4, 2, 1, bias=not norm)]
    if norm:
        layers.append(nn.InstanceNorm2d(cout))
    layers.append(nn.LeakyReLU(0.2, inplace=True))
    return nn.Sequential(*layers)


def up(cin, cout, dropout=False):
    layers = [nn.ConvTranspose2d(cin, cout, 4, 2, 1, bias=False), nn.InstanceNorm2d(cout), nn.ReLU(inplace=True)]
    if dropout:
        layers.append(nn.Dropout(0.5))
    return nn.Sequential(*layers)


class UNetGenerator(nn.Module):
    def __init__(self, in_ch=1, out_ch=3, nf=64):
        super().__init__()
        self.d1, self.d2, self.d3 = down(in_ch, nf, norm=False), down(nf, nf * 2), down(nf * 2, nf * 4)
        self.d4, self.d5 = down(nf * 4, nf * 8), down(nf * 8, nf * 8)
        self.u1, self.u2 = up(nf * 8, nf * 8, dropout=True), up(nf * 16, nf * 4)
        self.u3, self.u4 = up(nf * 8, nf * 2), up(nf * 4, nf)
        self.final = nn.Sequential(nn.ConvTranspose2d(nf * 2, out_ch, 4, 2, 1), nn.Tanh())

    def forward(self, x):
        e1 = self.d1(x)
        e2 = self.d2(e1)
        e3 = self.d3(e2)
        e4 = self.d4(e3)
        b = self.d5(e4)
        x = self.u1(b)
        x = self.u2(torch.cat([x, e4], 1))
        x = self.u3(torch.cat([x, e3], 1))
        x = self.u4(torch.cat([x, e2], 1))
        return self.final(torch.cat([x, e1], 1))


class PatchDiscriminator(nn.Module):
    def __init__(self, in_ch=4, nf=64):
        super().__init__()
        self.net = nn.Sequential(down(in_ch, nf, norm=False), down(nf, nf * 2), down(nf * 2, nf * 4),
                                 nn.Conv2d(nf * 4, nf * 8, 4, 1, 1, bias=False), nn.InstanceNorm2d(nf * 8),
                                 nn.LeakyReLU(0.2, inplace=True), nn.Conv2d(nf * 8, 1, 4, 1, 1))

    def forward(self, sketch, photo):
        return self.net(torch.cat([sketch, photo], 1))
