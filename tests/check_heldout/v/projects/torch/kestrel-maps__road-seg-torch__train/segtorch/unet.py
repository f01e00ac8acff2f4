import torch
import torch.nn as nn


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNetSmall(nn.Module):
    def __init__(self, num_classes=2):
        super().__init__()
        self.enc1, self.enc2 = block(3, 16), block(16, 32)
        self.pool = nn.MaxPool2d(2)
        self.up = nn.Upsample(scale_factor=2, mode="nearest")
        self.dec = block(48, 16)
        self.out = nn.Conv2d(16, num_classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        return self.out(self.dec(torch.cat([self.up(e2), e1], dim=1)))
