import torch
import torch.nn as nn


def conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.InstanceNorm2d(cout, affine=True), nn.LeakyReLU(0.01, True),
        nn.Conv2d(cout, cout, 3, padding=1, bias=False), nn.InstanceNorm2d(cout, affine=True), nn.LeakyReLU(0.01, True))


class UNet(nn.Module):
    def __init__(self, in_channels=1, num_classes=4, width=32, depth=4):
        super().__init__()
        chs = [width * 2 ** i for i in range(depth + 1)]
        self.down = nn.ModuleList([conv_block(in_channels, chs[0])] +
                                  [conv_block(chs[i], chs[i + 1]) for i in range(depth)])
        self.pool = nn.MaxPool2d(2)
        self.up = nn.ModuleList(nn.ConvTranspose2d(chs[i + 1], chs[i], 2, stride=2) for i in reversed(range(depth)))
        self.dec = nn.ModuleList(conv_block(2 * chs[i], chs[i]) for i in reversed(range(depth)))
        self.head = nn.Conv2d(chs[0], num_classes, 1)

    def forward(self, x):
        skips = []
        for i, block in enumerate(self.down):
            x = block(x if i == 0 else self.pool(x))
            skips.append(x)
        x = skips.pop()
        for up, dec in zip(self.up, self.dec):
            x = dec(torch.cat([up(x), skips.pop()], dim=1))
        return self.head(x)
