import torch
import torch.nn as nn


def _block(cin, cout):
    return nn.Sequential(
        nn.Conv3d(cin, cout, 3, padding=1, bias=False), nn.InstanceNorm3d(cout, affine=True),
        nn.LeakyReLU(0.01, inplace=True),
        nn.Conv3d(cout, cout, 3, padding=1, bias=False), nn.InstanceNorm3d(cout, affine=True),
        nn.LeakyReLU(0.01, inplace=True),
    )


class UNet3D(nn.Module):
    def __init__(self, in_ch=4, n_classes=4, base=16, depth=4):
        super().__init__()
        chs = [base * 2 ** i for i in range(depth)]
        self.down = nn.ModuleList()
        c = in_ch
        for ch in chs:
            self.down.append(_block(c, ch))
            c = ch
        self.pool = nn.MaxPool3d(2)
        self.up = nn.ModuleList()
        self.dec = nn.ModuleList()
        for ch in reversed(chs[:-1]):
            self.up.append(nn.ConvTranspose3d(c, ch, 2, stride=2))
            self.dec.append(_block(2 * ch, ch))
            c = ch
        self.head = nn.Conv3d(c, n_classes, 1)

    def forward(self, x):
        skips = []
        for i, blk in enumerate(self.down):
            x = blk(x)
            if i < len(self.down) - 1:
                skips.append(x)
                x = self.pool(x)
        for up, dec in zip(self.up, self.dec):
            x = up(x)
            x = dec(torch.cat([x, skips.pop()], 1))
        return self.head(x)
