import torch
import torch.nn as nn


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True), nn.Conv2d(cout, cout, 3, padding=1, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet2D(nn.Module):
    def __init__(self, in_ch=1, n_cls=1, base=32):
        super().__init__()
        chs = [base, base * 2, base * 4, base * 8]
        self.downs = nn.ModuleList()
        c = in_ch
        for ch in chs:
            self.downs.append(block(c, ch))
            c = ch
        self.ups = nn.ModuleList(nn.ConvTranspose2d(chs[i], chs[i - 1], 2, stride=2)
                                 for i in range(len(chs) - 1, 0, -1))
        self.dec = nn.ModuleList(block(chs[i - 1] * 2, chs[i - 1]) for i in range(len(chs) - 1, 0, -1))
        self.out = nn.Conv2d(base, n_cls, 1)
        self.pool = nn.MaxPool2d(2)

    def forward(self, x):
        skips = []
        for i, down in enumerate(self.downs):
            x = down(x)
            if i < len(self.downs) - 1:
                skips.append(x)
                x = self.pool(x)
        for up, dec, skip in zip(self.ups, self.dec, reversed(skips)):
            x = dec(torch.cat([up(x), skip], dim=1))
        return self.out(x)
