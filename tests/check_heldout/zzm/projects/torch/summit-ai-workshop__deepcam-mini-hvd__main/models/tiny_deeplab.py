import torch
import torch.nn as nn
import torch.nn.functional as F


class ASPP(nn.Module):
    def __init__(self, cin, cout, rates=(1, 6, 12)):
        super().__init__()
        self.branches = nn.ModuleList(
            nn.Conv2d(cin, cout, 3, padding=r, dilation=r, bias=False) for r in rates)
        self.project = nn.Sequential(nn.Conv2d(cout * len(rates), cout, 1), nn.ReLU(inplace=True))

    def forward(self, x):
        return self.project(torch.cat([b(x) for b in self.branches], dim=1))


class TinyDeepLab(nn.Module):
    """Small DeepLab-ish net for the 3-class (background / TC / AR) climate segmentation."""

    def __init__(self, in_channels=16, n_classes=3, width=32):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(in_channels, width, 3, stride=2, padding=1), nn.BatchNorm2d(width), nn.ReLU(True),
            nn.Conv2d(width, 2 * width, 3, stride=2, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(True),
        )
        self.aspp = ASPP(2 * width, 2 * width)
        self.classifier = nn.Conv2d(2 * width, n_classes, 1)

    def forward(self, x):
        h, w = x.shape[-2:]
        y = self.classifier(self.aspp(self.encoder(x)))
        return F.interpolate(y, size=(h, w), mode="bilinear", align_corners=False)
