import torch
import torch.nn as nn
import torch.nn.functional as F


class OverlapPatchEmbed(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.proj = nn.Conv2d(cin, cout, kernel_size=stride * 2 - 1, stride=stride, padding=stride - 1)
        self.norm = nn.BatchNorm2d(cout)

    def forward(self, x):
        return self.norm(self.proj(x))


class MixBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dw = nn.Conv2d(dim, dim, 3, padding=1, groups=dim)
        self.pw1 = nn.Conv2d(dim, dim * 4, 1)
        self.pw2 = nn.Conv2d(dim * 4, dim, 1)
        self.norm = nn.BatchNorm2d(dim)

    def forward(self, x):
        return x + self.pw2(F.gelu(self.pw1(self.norm(self.dw(x)))))


class SegFormerLite(nn.Module):
    def __init__(self, num_classes, widths=(32, 64, 160, 256), decoder_dim=256):
        super().__init__()
        strides = (4, 2, 2, 2)
        cin = 3
        self.stages = nn.ModuleList()
        for w, s in zip(widths, strides):
            self.stages.append(nn.Sequential(OverlapPatchEmbed(cin, w, s), MixBlock(w), MixBlock(w)))
            cin = w
        self.lateral = nn.ModuleList(nn.Conv2d(w, decoder_dim, 1) for w in widths)
        self.fuse = nn.Conv2d(decoder_dim * len(widths), decoder_dim, 1)
        self.head = nn.Conv2d(decoder_dim, num_classes, 1)

    def forward(self, x):
        size = x.shape[-2:]
        feats = []
        for stage in self.stages:
            x = stage(x)
            feats.append(x)
        target = feats[0].shape[-2:]
        up = [F.interpolate(l(f), size=target, mode="bilinear", align_corners=False)
              for l, f in zip(self.lateral, feats)]
        out = self.head(F.relu(self.fuse(torch.cat(up, dim=1))))
        return F.interpolate(out, size=size, mode="bilinear", align_corners=False)
