import torch
import torch.nn as nn


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class UNet(nn.Module):
    def __init__(self, in_ch=4, out_ch=1, base=16, depth=3):
        super().__init__()
        chs = [base * 2 ** i for i in range(depth + 1)]
        self.encoder = nn.ModuleList([block(in_ch if i == 0 else chs[i - 1], chs[i]) for i in range(depth + 1)])
        self.pool = nn.MaxPool2d(2)
        self.up = nn.ModuleList([nn.ConvTranspose2d(chs[i + 1], chs[i], 2, stride=2) for i in reversed(range(depth))])
        self.decoder = nn.ModuleList([block(chs[i] * 2, chs[i]) for i in reversed(range(depth))])
        self.head = nn.Conv2d(chs[0], out_ch, 1)

    def forward(self, x):
        skips = []
        for i, enc in enumerate(self.encoder):
            x = enc(x if i == 0 else self.pool(x))
            skips.append(x)
        x = skips.pop()
        for up, dec in zip(self.up, self.decoder):
            x = dec(torch.cat([up(x), skips.pop()], dim=1))
        return self.head(x)
