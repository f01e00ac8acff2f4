import torch
from torch import nn


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv3d(cin, cout, 3, padding=1, bias=False), nn.InstanceNorm3d(cout, affine=True),
                         nn.LeakyReLU(0.01, inplace=True),
                         nn.Conv3d(cout, cout, 3, padding=1, bias=False), nn.InstanceNorm3d(cout, affine=True),
                         nn.LeakyReLU(0.01, inplace=True))


class UNet3D(nn.Module):
    def __init__(self, in_ch=1, classes=3, base=16, depth=4):
        super().__init__()
        chs = [base * 2 ** i for i in range(depth)]
        self.enc = nn.ModuleList()
        cin = in_ch
        for c in chs:
            self.enc.append(conv_block(cin, c))
            cin = c
        self.pool = nn.MaxPool3d(2)
        self.up = nn.ModuleList([nn.ConvTranspose3d(chs[i], chs[i - 1], 2, 2) for i in range(depth - 1, 0, -1)])
        self.dec = nn.ModuleList([conv_block(2 * chs[i - 1], chs[i - 1]) for i in range(depth - 1, 0, -1)])
        self.head = nn.Conv3d(chs[0], classes, 1)

    def forward(self, x):
        skips = []
        for i, block in enumerate(self.enc):
            x = block(x)
            if i < len(self.enc) - 1:
                skips.append(x)
                x = self.pool(x)
        for up, dec in zip(self.up, self.dec):
            x = dec(torch.cat([up(x), skips.pop()], dim=1))
        return self.head(x)
