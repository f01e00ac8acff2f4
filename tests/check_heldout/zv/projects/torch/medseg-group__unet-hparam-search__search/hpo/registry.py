import torch
import torch.nn as nn

MODELS = {}


def model(name):
    def wrap(cls):
        MODELS[name] = cls
        return cls
    return wrap


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


@model("unet_small")
class UNetSmall(nn.Module):
    def __init__(self, in_ch=1, n_classes=2, base=16):
        super().__init__()
        self.enc1, self.enc2 = block(in_ch, base), block(base, base * 2)
        self.pool = nn.MaxPool2d(2)
        self.up = nn.ConvTranspose2d(base * 2, base, 2, stride=2)
        self.dec1 = block(base * 2, base)
        self.out = nn.Conv2d(base, n_classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        return self.out(self.dec1(torch.cat([self.up(e2), e1], dim=1)))


@model("fcn")
class TinyFCN(nn.Module):
    def __init__(self, in_ch=1, n_classes=2, base=32):
        super().__init__()
        self.net = nn.Sequential(block(in_ch, base), block(base, base), nn.Conv2d(base, n_classes, 1))

    def forward(self, x):
        return self.net(x)


def create(name, **kw):
    return MODELS[name](**kw)
