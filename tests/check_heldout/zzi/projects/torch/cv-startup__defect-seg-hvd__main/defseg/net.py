import torch
import torch.nn as nn


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Encoder(nn.Module):
    def __init__(self, widths=(16, 32, 64, 128)):
        super().__init__()
        self.stages = nn.ModuleList()
        cin = 1
        for w in widths:
            self.stages.append(block(cin, w))
            cin = w

    def forward(self, x):
        feats = []
        for i, stage in enumerate(self.stages):
            x = stage(x if i == 0 else nn.functional.max_pool2d(x, 2))
            feats.append(x)
        return feats


class Decoder(nn.Module):
    def __init__(self, widths=(16, 32, 64, 128)):
        super().__init__()
        self.ups = nn.ModuleList(nn.ConvTranspose2d(widths[i + 1], widths[i], 2, stride=2)
                                 for i in reversed(range(len(widths) - 1)))
        self.blocks = nn.ModuleList(block(2 * widths[i], widths[i]) for i in reversed(range(len(widths) - 1)))
        self.head = nn.Conv2d(widths[0], 1, 1)

    def forward(self, feats):
        x = feats[-1]
        for up, blk, skip in zip(self.ups, self.blocks, reversed(feats[:-1])):
            x = blk(torch.cat([up(x), skip], dim=1))
        return self.head(x)


class DefectUNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder, self.decoder = Encoder(), Decoder()

    def forward(self, x):
        return self.decoder(self.encoder(x))
