import torch.nn as nn
import torch.nn.functional as F


class ResBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(c, c, 3, padding=1), nn.ReLU(inplace=True), nn.Conv2d(c, c, 3, padding=1))

    def forward(self, x):
        return x + 0.1 * self.body(x)


class SRNet(nn.Module):
    def __init__(self, n_vars, channels, n_blocks, factor):
        super().__init__()
        self.factor = factor
        self.head = nn.Conv2d(n_vars, channels, 3, padding=1)
        self.body = nn.Sequential(*[ResBlock(channels) for _ in range(n_blocks)])
        self.up = nn.Sequential(nn.Conv2d(channels, n_vars * factor * factor, 3, padding=1), nn.PixelShuffle(factor))

    def forward(self, x):
        base = F.interpolate(x, scale_factor=self.factor, mode="bilinear", align_corners=False)
        return base + self.up(self.body(self.head(x)))
