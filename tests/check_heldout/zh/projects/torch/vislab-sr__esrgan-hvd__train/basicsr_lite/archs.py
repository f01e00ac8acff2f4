import torch
import torch.nn as nn
import torch.nn.functional as F


class ResidualDenseBlock(nn.Module):
    def __init__(self, nf=64, gc=32):
        super().__init__()
        self.convs = nn.ModuleList([nn.Conv2d(nf + i * gc, gc if i < 4 else nf, 3, 1, 1) for i in range(5)])
        self.act = nn.LeakyReLU(0.2, inplace=True)

    def forward(self, x):
        feats = [x]
        for i, conv in enumerate(self.convs):
            out = conv(torch.cat(feats, 1))
            if i < 4:
                feats.append(self.act(out))
        return x + 0.2 * out


class RRDBNet(nn.Module):
    def __init__(self, nf=64, nb=8, scale=4):
        super().__init__()
        self.conv_first = nn.Conv2d(3, nf, 3, 1, 1)
        self.body = nn.Sequential(*[ResidualDenseBlock(nf) for _ in range(nb)])
        self.conv_body = nn.Conv2d(nf, nf, 3, 1, 1)
        self.ups = nn.ModuleList([nn.Conv2d(nf, nf, 3, 1, 1) for _ in range(scale // 2)])
        self.conv_last = nn.Conv2d(nf, 3, 3, 1, 1)

    def forward(self, x):
        feat = self.conv_first(x)
        feat = feat + self.conv_body(self.body(feat))
        for up in self.ups:
            feat = F.leaky_relu(up(F.interpolate(feat, scale_factor=2, mode='nearest')), 0.2)
        return self.conv_last(feat)


class PatchDiscriminator(nn.Module):
    def __init__(self, nf=64):
        super().__init__()
        layers, cin = [], 3
        for i, cout in enumerate([nf, nf * 2, nf * 4, nf * 8]):
            layers += [nn.Conv2d(cin, cout, 4, 2, 1), nn.LeakyReLU(0.2, inplace=True)]
            cin = cout
        layers.append(nn.Conv2d(cin, 1, 3, 1, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)
