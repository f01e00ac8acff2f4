import torch.nn as nn


class X3DBlock(nn.Module):
    def __init__(self, cin, cout, expand=2.25, stride=2):
        super().__init__()
        mid = int(cin * expand)
        self.conv = nn.Sequential(
            nn.Conv3d(cin, mid, 1, bias=False), nn.BatchNorm3d(mid), nn.ReLU(inplace=True),
            nn.Conv3d(mid, mid, (3, 3, 3), (1, stride, stride), 1, groups=mid, bias=False),
            nn.BatchNorm3d(mid), nn.SiLU(inplace=True),
            nn.Conv3d(mid, cout, 1, bias=False), nn.BatchNorm3d(cout))
        self.skip = nn.Conv3d(cin, cout, 1, (1, stride, stride), bias=False)

    def forward(self, x):
        return (self.conv(x) + self.skip(x)).relu()


def x3d_xs(num_classes=400, width=12):
    return nn.Sequential(
        nn.Conv3d(3, width, (1, 3, 3), (1, 2, 2), (0, 1, 1), bias=False), nn.BatchNorm3d(width), nn.ReLU(),
        X3DBlock(width, width * 2), X3DBlock(width * 2, width * 4),
        nn.AdaptiveAvgPool3d(1), nn.Flatten(), nn.Dropout(0.5), nn.Linear(width * 4, num_classes))
