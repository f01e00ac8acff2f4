import torch
from torch import nn
import torch.nn.functional as F


def conv_bn(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class HarDBlockLite(nn.Module):
    def __init__(self, cin, growth, n_layers):
        super().__init__()
        self.layers = nn.ModuleList(conv_bn(cin + i * growth, growth) for i in range(n_layers))
        self.out_channels = cin + n_layers * growth

    def forward(self, x):
        feats = [x]
        for layer in self.layers:
            feats.append(layer(torch.cat(feats, 1)))
        return torch.cat(feats, 1)


class HarDNetSegLite(nn.Module):
    def __init__(self, n_classes=1):
        super().__init__()
        self.stem = nn.Sequential(conv_bn(3, 32, 2), conv_bn(32, 64, 2))
        self.block1 = HarDBlockLite(64, 16, 4)
        self.down = conv_bn(self.block1.out_channels, 128, 2)
        self.block2 = HarDBlockLite(128, 24, 4)
        self.head = nn.Conv2d(self.block2.out_channels + self.block1.out_channels, n_classes, 1)

    def forward(self, x):
        h, w = x.shape[-2:]
        f1 = self.block1(self.stem(x))
        f2 = self.block2(self.down(f1))
        f2 = F.interpolate(f2, size=f1.shape[-2:], mode="bilinear", align_corners=False)
        out = self.head(torch.cat([f1, f2], 1))
        return F.interpolate(out, size=(h, w), mode="bilinear", align_corners=False)
