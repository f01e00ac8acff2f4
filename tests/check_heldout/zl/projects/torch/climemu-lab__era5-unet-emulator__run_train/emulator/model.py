import torch
from torch import nn


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, padding_mode="circular"), nn.GroupNorm(8, cout),
                         nn.GELU(), nn.Conv2d(cout, cout, 3, padding=1, padding_mode="circular"), nn.GELU())


class UNet(nn.Module):
    def __init__(self, channels, base=32):
        super().__init__()
        self.enc1, self.enc2 = block(channels, base), block(base, 2 * base)
        self.mid = block(2 * base, 2 * base)
        self.up = nn.ConvTranspose2d(2 * base, base, 2, stride=2)
        self.dec = block(2 * base, base)
        self.out = nn.Conv2d(base, channels, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(nn.functional.max_pool2d(e1, 2))
        m = self.mid(e2)
        d = self.dec(torch.cat([self.up(m), e1], dim=1))
        return x + self.out(d)          # predict the tendency
