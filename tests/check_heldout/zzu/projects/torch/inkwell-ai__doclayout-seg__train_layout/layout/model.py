import torch
import torch.nn as nn
import torch.nn.functional as F


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True), nn.Conv2d(cout, cout, 3, padding=1, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class LayoutUNet(nn.Module):
    """Small U-Net that labels every pixel of a page with a region class."""

    def __init__(self, num_classes, width=32):
        super().__init__()
        w = width
        self.enc1, self.enc2, self.enc3 = block(3, w), block(w, 2 * w), block(2 * w, 4 * w)
        self.dec2, self.dec1 = block(6 * w, 2 * w), block(3 * w, w)
        self.head = nn.Conv2d(w, num_classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(F.max_pool2d(e1, 2))
        e3 = self.enc3(F.max_pool2d(e2, 2))
        d2 = self.dec2(torch.cat([F.interpolate(e3, scale_factor=2), e2], 1))
        d1 = self.dec1(torch.cat([F.interpolate(d2, scale_factor=2), e1], 1))
        return self.head(d1)
