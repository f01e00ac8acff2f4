import torch
import torch.nn as nn
import torch.nn.functional as F
import torchvision


class ConvBNReLU(nn.Sequential):
    def __init__(self, cin, cout, k=3, s=1):
        super().__init__(
            nn.Conv2d(cin, cout, k, s, k // 2, bias=False),
            nn.BatchNorm2d(cout),
            nn.ReLU(inplace=True),
        )


class SegLiteHead(nn.Module):
    def __init__(self, in_chs, mid, num_classes):
        super().__init__()
        self.lateral = nn.ModuleList([ConvBNReLU(c, mid, k=1) for c in in_chs])
        self.fuse = ConvBNReLU(mid, mid)
        self.cls = nn.Conv2d(mid, num_classes, 1)

    def forward(self, feats):
        out = None
        for f, lat in zip(reversed(feats), reversed(self.lateral)):
            f = lat(f)
            if out is None:
                out = f
            else:
                out = f + F.interpolate(out, size=f.shape[-2:], mode="bilinear", align_corners=False)
        return self.cls(self.fuse(out))


class SegLite(nn.Module):
    def __init__(self, num_classes, pretrained=""):
        super().__init__()
        r = torchvision.models.resnet18()
        if pretrained:
            r.load_state_dict(torch.load(pretrained, map_location="cpu"), strict=False)
        self.stem = nn.Sequential(r.conv1, r.bn1, r.relu, r.maxpool)
        self.stages = nn.ModuleList([r.layer1, r.layer2, r.layer3, r.layer4])
        self.head = SegLiteHead([64, 128, 256, 512], 128, num_classes)

    def forward(self, x):
        size = x.shape[-2:]
        x = self.stem(x)
        feats = []
        for stage in self.stages:
            x = stage(x)
            feats.append(x)
        logits = self.head(feats)
        return F.interpolate(logits, size=size, mode="bilinear", align_corners=False)
