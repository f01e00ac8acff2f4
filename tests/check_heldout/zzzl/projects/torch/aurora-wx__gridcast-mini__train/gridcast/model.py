import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv1 = nn.Conv2d(c, c, 3, padding=(1, 0))
        self.conv2 = nn.Conv2d(c, c, 3, padding=(1, 0))
        self.act = nn.GELU()

    @staticmethod
    def _pad_lon(x):
        # periodic in longitude
        return torch.cat([x[..., -1:], x, x[..., :1]], dim=-1)

    def forward(self, x):
        h = self.act(self.conv1(self._pad_lon(x)))
        h = self.conv2(self._pad_lon(h))
        return x + h


class GridNet(nn.Module):
    def __init__(self, channels, width=64, depth=4):
        super().__init__()
        self.inp = nn.Conv2d(channels, width, 1)
        self.blocks = nn.Sequential(*[Block(width) for _ in range(depth)])
        self.out = nn.Conv2d(width, channels, 1)

    def forward(self, x):
        return x + self.out(self.blocks(self.inp(x)))
