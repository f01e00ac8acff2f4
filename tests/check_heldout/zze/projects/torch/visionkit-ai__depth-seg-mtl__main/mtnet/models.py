import torch.nn as nn
import torch.nn.functional as F


def conv_bn(cin, cout, stride=1):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class SegDepthNet(nn.Module):
    """Tiny shared encoder, two decoders (semantic segmentation and depth)."""

    def __init__(self, num_classes=13, width=32):
        super().__init__()
        self.encoder = nn.Sequential(conv_bn(3, width, 2), conv_bn(width, width * 2, 2),
                                     conv_bn(width * 2, width * 4, 2), conv_bn(width * 4, width * 4))
        self.seg_head = nn.Sequential(conv_bn(width * 4, width * 2), nn.Conv2d(width * 2, num_classes, 1))
        self.depth_head = nn.Sequential(conv_bn(width * 4, width * 2), nn.Conv2d(width * 2, 1, 1), nn.Softplus())

    def forward(self, x):
        size = x.shape[-2:]
        f = self.encoder(x)
        seg = F.interpolate(self.seg_head(f), size=size, mode="bilinear", align_corners=False)
        depth = F.interpolate(self.depth_head(f), size=size, mode="bilinear", align_corners=False)
        return seg, depth
