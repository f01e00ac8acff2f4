import torch
import torch.nn as nn
import torch.nn.functional as F

from .registry import MODELS


def conv_bn(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True))


@MODELS.register_module()
class MiniUNet(nn.Module):
    def __init__(self, in_channels=1, num_classes=2, base=16):
        super().__init__()
        self.backbone = nn.ModuleList([conv_bn(in_channels, base), conv_bn(base, 2 * base),
                                       conv_bn(2 * base, 4 * base)])
        self.decoder = nn.ModuleDict({
            "up2": conv_bn(6 * base, 2 * base),
            "up1": conv_bn(3 * base, base),
            "cls": nn.Conv2d(base, num_classes, 1),
        })

    def forward(self, x):
        f1 = self.backbone[0](x)
        f2 = self.backbone[1](F.max_pool2d(f1, 2))
        f3 = self.backbone[2](F.max_pool2d(f2, 2))
        y = F.interpolate(f3, size=f2.shape[-2:], mode="bilinear", align_corners=False)
        y = self.decoder["up2"](torch.cat([y, f2], 1))
        y = F.interpolate(y, size=f1.shape[-2:], mode="bilinear", align_corners=False)
        y = self.decoder["up1"](torch.cat([y, f1], 1))
        return self.decoder["cls"](y)

    def freeze_backbone(self, frozen=True):
        for p in self.backbone.parameters():
            p.requires_grad_(not frozen)
