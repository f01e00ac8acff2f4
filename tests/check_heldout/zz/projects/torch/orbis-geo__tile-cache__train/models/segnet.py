import torch
import torch.nn as nn


def conv_bn(i, o):
    return nn.Sequential(nn.Conv2d(i, o, 3, padding=1, bias=False), nn.BatchNorm2d(o), nn.ReLU(True))


class TinySegNet(nn.Module):
    def __init__(self, in_ch=4, classes=9, w=32):
        super().__init__()
        self.enc1, self.enc2 = conv_bn(in_ch, w), conv_bn(w, 2 * w)
        self.pool = nn.MaxPool2d(2)
        self.mid = conv_bn(2 * w, 2 * w)
        self.up = nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False)
        self.dec = conv_bn(4 * w, w)
        self.head = nn.Conv2d(w, classes, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        m = self.mid(e2)
        d = self.dec(torch.cat([self.up(m), self.up(e2)], 1))
        return self.head(d)
