import torch.nn as nn
import torch.nn.functional as F
import torchvision

SEGMENTORS = {}


def register(cls):
    SEGMENTORS[cls.__name__] = cls
    return cls


@register
class FCN(nn.Module):
    def __init__(self, backbone='resnet18', num_classes=19):
        super().__init__()
        net = getattr(torchvision.models, backbone)()
        self.backbone = nn.Sequential(*list(net.children())[:-2])
        channels = net.fc.in_features
        self.decode_head = nn.Sequential(nn.Conv2d(channels, 256, 3, padding=1), nn.BatchNorm2d(256),
                                         nn.ReLU(inplace=True), nn.Conv2d(256, num_classes, 1))

    def forward(self, img):
        out = self.decode_head(self.backbone(img))
        return F.interpolate(out, size=img.shape[2:], mode='bilinear', align_corners=False)


def build_segmentor(cfg):
    cfg = dict(cfg)
    return SEGMENTORS[cfg.pop('type')](**cfg)
