import torch
import torch.nn as nn
import horovod.torch as hvd


def _block(cin, cout, stride):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(True))


class Backbone(nn.Module):
    def __init__(self, width):
        super().__init__()
        self.stages = nn.Sequential(_block(3, width, 2), _block(width, width, 1),
                                    _block(width, width * 2, 2), _block(width * 2, width * 2, 1))
        self.out_channels = width * 2

    def forward(self, x):
        return self.stages(x)


class CenterHead(nn.Module):
    def __init__(self, cin, num_classes):
        super().__init__()
        self.hm = nn.Sequential(_block(cin, cin, 1), nn.Conv2d(cin, num_classes, 1))
        self.wh = nn.Sequential(_block(cin, cin, 1), nn.Conv2d(cin, 2, 1))
        nn.init.constant_(self.hm[-1].bias, -2.19)

    def forward(self, feat):
        return self.hm(feat), self.wh(feat)


class Detector(nn.Module):
    def __init__(self, backbone, head):
        super().__init__()
        self.backbone, self.head = backbone, head

    def forward(self, x):
        return self.head(self.backbone(x))


def build_backbone(cfg):
    backbone = Backbone(cfg['MODEL']['WIDTH'])
    if cfg['MODEL']['WEIGHTS']:
        state = torch.load(cfg['MODEL']['WEIGHTS'], map_location='cpu')
        backbone.load_state_dict(state, strict=False)
    # make sure every worker starts from the same backbone
    hvd.broadcast_parameters(backbone.state_dict(), root_rank=0)
    return backbone


def build_model(cfg):
    backbone = build_backbone(cfg)
    head = CenterHead(backbone.out_channels, cfg['MODEL']['NUM_CLASSES'])
    return Detector(backbone, head)
