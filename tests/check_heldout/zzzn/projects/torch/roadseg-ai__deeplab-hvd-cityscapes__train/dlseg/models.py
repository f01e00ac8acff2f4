import torch
import torch.nn as nn
import torch.nn.functional as F


def conv_bn(cin, cout, k=3, s=1, d=1):
    return nn.Sequential(nn.Conv2d(cin, cout, k, s, padding=d * (k // 2), dilation=d, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class ASPP(nn.Module):
    def __init__(self, cin, cout, rates=(6, 12, 18)):
        super().__init__()
        self.branches = nn.ModuleList([conv_bn(cin, cout, 1)] + [conv_bn(cin, cout, 3, d=r) for r in rates])
        self.pool = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Conv2d(cin, cout, 1, bias=False), nn.ReLU(inplace=True))
        self.project = conv_bn(cout * (len(rates) + 2), cout, 1)

    def forward(self, x):
        h, w = x.shape[-2:]
        outs = [b(x) for b in self.branches]
        outs.append(F.interpolate(self.pool(x), size=(h, w), mode="bilinear", align_corners=False))
        return self.project(torch.cat(outs, 1))


class DeepLabLite(nn.Module):
    def __init__(self, num_classes, width=32):
        super().__init__()
        self.stem = nn.Sequential(conv_bn(3, width, s=2), conv_bn(width, width), conv_bn(width, width * 2, s=2))
        self.layer = nn.Sequential(conv_bn(width * 2, width * 4, s=2), conv_bn(width * 4, width * 4, d=2))
        self.aspp = ASPP(width * 4, width * 4)
        self.head = nn.Conv2d(width * 4, num_classes, 1)

    def forward(self, x):
        h, w = x.shape[-2:]
        out = self.head(self.aspp(self.layer(self.stem(x))))
        return F.interpolate(out, size=(h, w), mode="bilinear", align_corners=False)


def build_model(num_classes):
    return DeepLabLite(num_classes)
