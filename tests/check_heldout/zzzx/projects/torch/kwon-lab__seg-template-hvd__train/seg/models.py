import torch
import torch.nn as nn
import torch.nn.functional as F


def _block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNetSmall(nn.Module):
    def __init__(self, in_ch=3, n_classes=21, width=16):
        super().__init__()
        self.enc1 = _block(in_ch, width)
        self.enc2 = _block(width, width * 2)
        self.mid = _block(width * 2, width * 4)
        self.dec2 = _block(width * 4 + width * 2, width * 2)
        self.dec1 = _block(width * 2 + width, width)
        self.head = nn.Conv2d(width, n_classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        m = self.mid(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([F.interpolate(m, scale_factor=2), e2], 1))
        d1 = self.dec1(torch.cat([F.interpolate(d2, scale_factor=2), e1], 1))
        return self.head(d1)
