import torch
import torch.nn as nn


class Unit3D(nn.Sequential):
    def __init__(self, cin, cout, k=(3, 3, 3), stride=(1, 1, 1)):
        super().__init__(nn.Conv3d(cin, cout, k, stride, tuple(x // 2 for x in k), bias=False),
                         nn.BatchNorm3d(cout, eps=1e-3, momentum=0.01), nn.ReLU(inplace=True))


class InceptionI3dTiny(nn.Module):
    """Heavily reduced I3D: stem + two mixed blocks + logits."""

    def __init__(self, num_classes=101, dropout=0.5):
        super().__init__()
        self.stem = nn.Sequential(Unit3D(3, 16, (7, 7, 7), (2, 2, 2)),
                                  nn.MaxPool3d((1, 3, 3), (1, 2, 2), (0, 1, 1)))
        self.b1 = Unit3D(16, 24, (1, 1, 1))
        self.b2 = nn.Sequential(Unit3D(16, 12, (1, 1, 1)), Unit3D(12, 24))
        self.pool = nn.AdaptiveAvgPool3d(1)
        self.dropout = nn.Dropout(dropout)
        self.logits = nn.Conv3d(48, num_classes, 1)

    def forward(self, x):
        x = self.stem(x)
        x = self.pool(torch.cat([self.b1(x), self.b2(x)], dim=1))
        return self.logits(self.dropout(x)).flatten(1)

