import torch.nn as nn


def conv(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(True))


class TinyDepthNet(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.enc = nn.Sequential(conv(3, width), conv(width, width * 2, 2), conv(width * 2, width * 4, 2))
        self.dec = nn.Sequential(nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
                                 conv(width * 4, width * 2),
                                 nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
                                 conv(width * 2, width), nn.Conv2d(width, 1, 1), nn.Softplus())

    def forward(self, x):
        return self.dec(self.enc(x))
