import torch
import torch.nn as nn


def mlp1d(channels, bn=True):
    layers = []
    for cin, cout in zip(channels[:-1], channels[1:]):
        layers += [nn.Conv1d(cin, cout, 1), nn.BatchNorm1d(cout) if bn else nn.Identity(), nn.ReLU(inplace=True)]
    return nn.Sequential(*layers)


class PointNetSeg(nn.Module):
    """PointNet semantic segmentation (no T-Nets): per-point features + global max-pool feature."""

    def __init__(self, in_channels=9, num_classes=13, dropout=0.5):
        super().__init__()
        self.local = mlp1d([in_channels, 64, 64])
        self.glob = mlp1d([64, 64, 128, 1024])
        self.seg = nn.Sequential(mlp1d([1088, 512, 256, 128]), nn.Dropout(dropout), nn.Conv1d(128, num_classes, 1))

    def forward(self, x):  # x: B x C x N
        f = self.local(x)
        g = self.glob(f).max(dim=2, keepdim=True)[0].expand(-1, -1, x.size(2))
        return self.seg(torch.cat([f, g], 1))  # B x K x N
