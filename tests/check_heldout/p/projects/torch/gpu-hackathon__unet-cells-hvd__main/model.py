import torch
import torch.nn as nn


def double_conv(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
        nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
    )


class UNet(nn.Module):
    def __init__(self, in_ch=1, out_ch=1, c=32):
        super().__init__()
        self.d1, self.d2, self.d3 = double_conv(in_ch, c), double_conv(c, 2 * c), double_conv(2 * c, 4 * c)
        self.pool = nn.MaxPool2d(2)
        self.u2 = nn.ConvTranspose2d(4 * c, 2 * c, 2, stride=2)
        self.c2 = double_conv(4 * c, 2 * c)
        self.u1 = nn.ConvTranspose2d(2 * c, c, 2, stride=2)
        self.c1 = double_conv(2 * c, c)
        self.out = nn.Conv2d(c, out_ch, 1)

    def forward(self, x):
        x1 = self.d1(x)
        x2 = self.d2(self.pool(x1))
        x3 = self.d3(self.pool(x2))
        y = self.c2(torch.cat([self.u2(x3), x2], 1))
        y = self.c1(torch.cat([self.u1(y), x1], 1))
        return self.out(y)
