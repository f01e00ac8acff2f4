import torch.nn as nn


class SpatioTemporalConv(nn.Module):
    """(2+1)D convolution: a spatial 1xkxk conv followed by a temporal kx1x1 conv."""

    def __init__(self, cin, cout, k=3, stride=1):
        super().__init__()
        mid = max(4, (cin + cout) // 2)
        self.spatial = nn.Conv3d(cin, mid, (1, k, k), (1, stride, stride), (0, k // 2, k // 2), bias=False)
        self.bn = nn.BatchNorm3d(mid)
        self.temporal = nn.Conv3d(mid, cout, (k, 1, 1), (stride, 1, 1), (k // 2, 0, 0), bias=False)

    def forward(self, x):
        return self.temporal(self.bn(self.spatial(x)).relu())


class R2Plus1D(nn.Module):
    def __init__(self, verbs=97, nouns=300, width=16):
        super().__init__()
        self.features = nn.Sequential(
            SpatioTemporalConv(3, width, stride=2), nn.BatchNorm3d(width), nn.ReLU(inplace=True),
            SpatioTemporalConv(width, width * 2, stride=2), nn.BatchNorm3d(width * 2), nn.ReLU(inplace=True),
            nn.AdaptiveAvgPool3d(1), nn.Flatten())
        self.verb_head = nn.Linear(width * 2, verbs)
        self.noun_head = nn.Linear(width * 2, nouns)

    def forward(self, x):
        h = self.features(x)
        return self.verb_head(h), self.noun_head(h)
