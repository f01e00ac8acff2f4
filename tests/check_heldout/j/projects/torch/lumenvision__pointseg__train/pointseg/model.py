import torch
from torch import nn


def _mlp(channels):
    layers = []
    for cin, cout in zip(channels[:-1], channels[1:]):
        layers += [nn.Conv1d(cin, cout, 1), nn.BatchNorm1d(cout), nn.ReLU(inplace=True)]
    return nn.Sequential(*layers)


class PointNetSeg(nn.Module):
    def __init__(self, in_channels=6, num_classes=13):
        super().__init__()
        self.local = _mlp([in_channels, 64, 64, 128])
        self.glob = _mlp([128, 256, 1024])
        self.head = nn.Sequential(_mlp([128 + 1024, 512, 256, 128]), nn.Dropout(0.3),
                                  nn.Conv1d(128, num_classes, 1))

    def forward(self, x):
        local = self.local(x)
        g = self.glob(local).max(dim=2, keepdim=True).values
        g = g.expand(-1, -1, local.shape[2])
        return self.head(torch.cat([local, g], dim=1))
