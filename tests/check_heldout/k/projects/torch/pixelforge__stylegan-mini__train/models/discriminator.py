import torch
import torch.nn as nn
import torch.nn.functional as F

from .layers import EqualConv2d, EqualLinear


class MinibatchStd(nn.Module):
    def __init__(self, group=4):
        super().__init__()
        self.group = group

    def forward(self, x):
        b, c, h, w = x.shape
        g = min(self.group, b)
        y = x.reshape(g, -1, c, h, w)
        y = torch.sqrt(y.var(0, unbiased=False) + 1e-8).mean([1, 2, 3])
        y = y.reshape(-1, 1, 1, 1).repeat(g, 1, h, w)
        return torch.cat([x, y], 1)


class DownBlock(nn.Module):
    def __init__(self, cin, cout):
        super().__init__()
        self.conv1 = EqualConv2d(cin, cin, 3, padding=1)
        self.conv2 = EqualConv2d(cin, cout, 3, padding=1)
        self.skip = EqualConv2d(cin, cout, 1)

    def forward(self, x):
        y = F.leaky_relu(self.conv1(x), 0.2)
        y = F.avg_pool2d(F.leaky_relu(self.conv2(y), 0.2), 2)
        return (y + F.avg_pool2d(self.skip(x), 2)) / 1.4142135623730951


class Discriminator(nn.Module):
    def __init__(self, resolution=64, base=256):
        super().__init__()
        n_blocks = int(math.log2(resolution)) - 2
        chans = [max(base // (2 ** i), 32) for i in range(n_blocks + 1)][::-1]
        self.from_rgb = EqualConv2d(3, chans[0], 1)
        self.blocks = nn.Sequential(*[DownBlock(chans[i], chans[i + 1]) for i in range(n_blocks)])
        self.mbstd = MinibatchStd()
        self.final_conv = EqualConv2d(chans[-1] + 1, chans[-1], 3, padding=1)
        self.fc = EqualLinear(chans[-1] * 16, 1)

    def forward(self, img):
        x = F.leaky_relu(self.from_rgb(img), 0.2)
        x = self.mbstd(self.blocks(x))
        x = F.leaky_relu(self.final_conv(x), 0.2)
        return self.fc(x.flatten(1))
