import torch
import torch.nn as nn


def conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv3d(cin, cout, 3, padding=1, bias=False), nn.InstanceNorm3d(cout, affine=True),
        nn.LeakyReLU(0.01, inplace=True),
        nn.Conv3d(cout, cout, 3, padding=1, bias=False), nn.InstanceNorm3d(cout, affine=True),
        nn.LeakyReLU(0.01, inplace=True),
    )


class UNet3D(nn.Module):
    def __init__(self, in_channels=1, num_classes=3, base_channels=24, depth=4):
        super().__init__()
        chs = [base_channels * 2 ** i for i in range(depth + 1)]
        self.down = nn.ModuleList()
        cin = in_channels
        for c in chs:
            self.down.append(conv_block(cin, c))
            cin = c
        self.pool = nn.MaxPool3d(2)
        self.up = nn.ModuleList()
        self.dec = nn.ModuleList()
        for c_hi, c_lo in zip(chs[::-1][:-1], chs[::-1][1:]):
            self.up.append(nn.ConvTranspose3d(c_hi, c_lo, 2, stride=2))
            self.dec.append(conv_block(2 * c_lo, c_lo))
        self.out = nn.Conv3d(chs[0], num_classes, 1)

    def forward(self, x):
        skips = []
        for i, block in enumerate(self.down):
            x = block(x)
            if i < len(self.down) - 1:
                skips.append(x)
                x = self.pool(x)
        for up, dec, skip in zip(self.up, self.dec, reversed(skips)):
            x = dec(torch.cat([up(x), skip], dim=1))
        return self.out(x)
