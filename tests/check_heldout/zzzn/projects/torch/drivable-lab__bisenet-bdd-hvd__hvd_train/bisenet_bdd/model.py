import torch
import torch.nn as nn
import torch.nn.functional as F


def cbr(i, o, s=1):
    return nn.Sequential(nn.Conv2d(i, o, 3, s, 1, bias=False), nn.BatchNorm2d(o), nn.ReLU(inplace=True))


class BiSeNetV2Lite(nn.Module):
    """detail branch + semantic branch + aggregation; head and aux head kept separate
    so they can get their own lr."""

    def __init__(self, n_classes):
        super().__init__()
        self.backbone = nn.ModuleDict({
            "detail": nn.Sequential(cbr(3, 32, 2), cbr(32, 64, 2), cbr(64, 64, 2)),
            "semantic": nn.Sequential(cbr(3, 16, 4), cbr(16, 64, 2), cbr(64, 64, 2), nn.AdaptiveAvgPool2d(1)),
        })
        self.head = nn.Sequential(cbr(64, 64), nn.Conv2d(64, n_classes, 1))
        self.aux_head = nn.Conv2d(64, n_classes, 1)

    def forward(self, x):
        size = x.shape[-2:]
        d = self.backbone["detail"](x)
        s = self.backbone["semantic"](x)
        agg = d * torch.sigmoid(s)
        out = F.interpolate(self.head(agg), size, mode="bilinear", align_corners=False)
        if self.training:
            aux = F.interpolate(self.aux_head(d), size, mode="bilinear", align_corners=False)
            return out, aux
        return out
