import torch
import torch.nn as nn


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class SmallUNet(nn.Module):
    def __init__(self, base=16):
        super().__init__()
        self.e1, self.e2, self.e3 = block(1, base), block(base, 2 * base), block(2 * base, 4 * base)
        self.pool = nn.MaxPool2d(2)
        self.u2 = nn.ConvTranspose2d(4 * base, 2 * base, 2, stride=2)
        self.d2 = block(4 * base, 2 * base)
        self.u1 = nn.ConvTranspose2d(2 * base, base, 2, stride=2)
        self.d1 = block(2 * base, base)
        self.out = nn.Conv2d(base, 1, 1)

    def forward(self, x):
        x1 = self.e1(x)
        x2 = self.e2(self.pool(x1))
        x3 = self.e3(self.pool(x2))
        y = self.d2(torch.cat([self.u2(x3), x2], 1))
        y = self.d1(torch.cat([self.u1(y), x1], 1))
        return self.out(y)
