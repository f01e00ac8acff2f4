import torch
import torch.nn as nn


class DoubleConv(nn.Sequential):
    def __init__(self, cin, cout):
        super().__init__(
            nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
            nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, in_ch, n_classes, base=32):
        super().__init__()
        w = [base * 2 ** i for i in range(5)]
        self.enc = nn.ModuleList([DoubleConv(in_ch, w[0])] + [DoubleConv(w[i], w[i + 1]) for i in range(4)])
        self.ups = nn.ModuleList(nn.ConvTranspose2d(w[i + 1], w[i], 2, stride=2) for i in reversed(range(4)))
        self.dec = nn.ModuleList(DoubleConv(2 * w[i], w[i]) for i in reversed(range(4)))
        self.out = nn.Conv2d(w[0], n_classes, 1)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        skips = []
        for i, enc in enumerate(self.enc):
            x = enc(x if i == 0 else self.pool(x))
            skips.append(x)
        skips.pop()
        for up, dec in zip(self.ups, self.dec):
            x = dec(torch.cat([up(x), skips.pop()], 1))
        return self.out(x)
