import torch
import torch.nn as nn

from .dist import get_dist_info


class Registry(dict):
    def register(self, name=None):
        def _wrap(cls):
            self[name or cls.__name__] = cls
            return cls
        return _wrap


MODELS = Registry()


def conv_bn(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


@MODELS.register()
class LiteFCN(nn.Module):
    def __init__(self, in_channels=4, num_classes=6, width=32):
        super().__init__()
        self.enc1 = conv_bn(in_channels, width)
        self.enc2 = nn.Sequential(nn.MaxPool2d(2), conv_bn(width, width * 2))
        self.enc3 = nn.Sequential(nn.MaxPool2d(2), conv_bn(width * 2, width * 4))
        self.up = nn.Upsample(scale_factor=4, mode='bilinear', align_corners=False)
        self.head = nn.Conv2d(width * 4 + width, num_classes, 1)

    def forward(self, x):
        f1 = self.enc1(x)
        f3 = self.enc3(self.enc2(f1))
        return self.head(torch.cat([self.up(f3), f1], dim=1))


def build_model(cfg):
    cfg = dict(cfg)
    return MODELS[cfg.pop('type')](**cfg)


def build_optimizer(cfg, model):
    cfg = dict(cfg)
    _, world = get_dist_info()
    base_lr = cfg.pop('lr')
    if cfg.pop('autoscale_lr', True):
        base_lr = base_lr * world
    kind = cfg.pop('type', 'SGD')
    return getattr(torch.optim, kind)(model.parameters(), lr=base_lr, **cfg)
