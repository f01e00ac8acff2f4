import torch
import torch.nn as nn


def conv_block(cin, cout, drop):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.InstanceNorm2d(cout), nn.LeakyReLU(0.2),
                         nn.Dropout2d(drop),
                         nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.InstanceNorm2d(cout), nn.LeakyReLU(0.2))


class ReconUNet(nn.Module):
    """fastMRI-style U-Net on magnitude images, residual output."""

    def __init__(self, chans=32, pools=3, drop=0.0):
        super().__init__()
        self.down = nn.ModuleList([conv_block(1, chans, drop)])
        ch = chans
        for _ in range(pools - 1):
            self.down.append(conv_block(ch, ch * 2, drop))
            ch *= 2
        self.bottom = conv_block(ch, ch * 2, drop)
        self.up_t = nn.ModuleList()
        self.up = nn.ModuleList()
        for _ in range(pools):
            self.up_t.append(nn.ConvTranspose2d(ch * 2, ch, 2, stride=2))
            self.up.append(conv_block(ch * 2, ch, drop))
            ch //= 2
        self.out = nn.Conv2d(ch * 2, 1, 1)

    def forward(self, x):
        skips, y = [], x
        for blk in self.down:
            y = blk(y)
            skips.append(y)
            y = nn.functional.avg_pool2d(y, 2)
        y = self.bottom(y)
        for t, blk in zip(self.up_t, self.up):
            y = blk(torch.cat([t(y), skips.pop()], 1))
        return x + self.out(y)
