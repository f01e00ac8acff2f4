import torch
import torch.nn as nn


def block(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True),
                         nn.Conv2d(o, o, 3, padding=1), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, in_ch=1, n_classes=2, w=32):
        super().__init__()
        self.d1, self.d2, self.d3 = block(in_ch, w), block(w, 2 * w), block(2 * w, 4 * w)
        self.pool = nn.MaxPool2d(2)
        self.u2 = nn.ConvTranspose2d(4 * w, 2 * w, 2, stride=2)
        self.c2 = block(4 * w, 2 * w)
        self.u1 = nn.ConvTranspose2d(2 * w, w, 2, stride=2)
        self.c1 = block(2 * w, w)
        self.out = nn.Conv2d(w, n_classes, 1)

    def forward(self, x):
        x1 = self.d1(x)
        x2 = self.d2(self.pool(x1))
        x3 = self.d3(self.pool(x2))
        y = self.c2(torch.cat([self.u2(x3), x2], 1))
        y = self.c1(torch.cat([self.u1(y), x1], 1))
        return self.out(y)
