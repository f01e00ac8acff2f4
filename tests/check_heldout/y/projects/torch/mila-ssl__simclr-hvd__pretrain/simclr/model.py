import torch.nn as nn
import torch.nn.functional as F


def conv_bn(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


class Encoder(nn.Module):
    def __init__(self, width=64):
        super().__init__()
        w = width
        self.body = nn.Sequential(conv_bn(3, w), conv_bn(w, w, 2), conv_bn(w, 2 * w, 2),
                                  conv_bn(2 * w, 4 * w, 2), conv_bn(4 * w, 8 * w, 2))
        self.out_dim = 8 * w

    def forward(self, x):
        return F.adaptive_avg_pool2d(self.body(x), 1).flatten(1)


class SimCLR(nn.Module):
    def __init__(self, width=64, proj_dim=128):
        super().__init__()
        self.encoder = Encoder(width)
        d = self.encoder.out_dim
        self.head = nn.Sequential(nn.Linear(d, d), nn.BatchNorm1d(d), nn.ReLU(inplace=True),
                                  nn.Linear(d, proj_dim))

    def forward(self, x):
        return F.normalize(self.head(self.encoder(x)), dim=1)
