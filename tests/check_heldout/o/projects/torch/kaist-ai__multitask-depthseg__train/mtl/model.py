import torch
import torch.nn as nn
import torch.nn.functional as F


def cbr(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class Encoder(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.s1 = nn.Sequential(cbr(3, width, 2), cbr(width, width))
        self.s2 = nn.Sequential(cbr(width, 2 * width, 2), cbr(2 * width, 2 * width))
        self.s3 = nn.Sequential(cbr(2 * width, 4 * width, 2), cbr(4 * width, 4 * width))

    def forward(self, x):
        f1 = self.s1(x)
        f2 = self.s2(f1)
        return f1, self.s3(f2)


class Head(nn.Module):
    def __init__(self, cin, skip, cout):
        super().__init__()
        self.fuse = cbr(cin + skip, cin // 2)
        self.out = nn.Conv2d(cin // 2, cout, 1)

    def forward(self, deep, skip, size):
        x = F.interpolate(deep, size=skip.shape[-2:], mode="bilinear", align_corners=False)
        x = self.out(self.fuse(torch.cat([x, skip], 1)))
        return F.interpolate(x, size=size, mode="bilinear", align_corners=False)


class MultiTaskNet(nn.Module):
    """Shared encoder, one decoder head per task (semantic segmentation + monocular depth)."""

    def __init__(self, num_classes=13, width=32):
        super().__init__()
        self.encoder = Encoder(width)
        self.seg_head = Head(4 * width, width, num_classes)
        self.depth_head = Head(4 * width, width, 1)

    def forward(self, x):
        f1, f3 = self.encoder(x)
        size = x.shape[-2:]
        return {"seg": self.seg_head(f3, f1, size), "depth": self.depth_head(f3, f1, size).squeeze(1)}
