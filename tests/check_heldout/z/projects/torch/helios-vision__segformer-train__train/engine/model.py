import torch.nn as nn
import torch.nn.functional as F


class MixBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv = nn.Conv2d(cin, cout, 3, stride=stride, padding=1)
        self.norm = nn.BatchNorm2d(cout)
        self.mlp = nn.Sequential(nn.Conv2d(cout, cout * 2, 1), nn.GELU(), nn.Conv2d(cout * 2, cout, 1))

    def forward(self, x):
        x = F.gelu(self.norm(self.conv(x)))
        return x + self.mlp(x)


class SegFormerLite(nn.Module):
    def __init__(self, num_classes=6, widths=(32, 64, 128)):
        super().__init__()
        chans = (3,) + tuple(widths)
        self.stages = nn.ModuleList(MixBlock(chans[i], chans[i + 1], 2) for i in range(len(widths)))
        self.fuse = nn.Conv2d(sum(widths), 64, 1)
        self.classifier = nn.Conv2d(64, num_classes, 1)

    def forward(self, x):
        size = x.shape[-2:]
        feats = []
        for stage in self.stages:
            x = stage(x)
            feats.append(x)
        feats = [F.interpolate(f, size=feats[0].shape[-2:], mode="bilinear", align_corners=False) for f in feats]
        out = self.classifier(F.gelu(self.fuse(torch_cat(feats))))
        return F.interpolate(out, size=size, mode="bilinear", align_corners=False)


def torch_cat(tensors):
    import torch
    return torch.cat(tensors, dim=1)
