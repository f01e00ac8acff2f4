import torch.nn as nn
import torchvision

from . import FINDINGS


class MultiHeadCXR(nn.Module):
    def __init__(self, pretrained_backbone=False):
        super().__init__()
        net = torchvision.models.densenet121(weights="DEFAULT" if pretrained_backbone else None)
        net.features.conv0 = nn.Conv2d(1, 64, 7, 2, 3, bias=False)
        self.backbone = nn.Sequential(net.features, nn.ReLU(inplace=True), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.heads = nn.ModuleDict({
            "findings": nn.Linear(1024, len(FINDINGS)),
            "view": nn.Linear(1024, 2),
            "age": nn.Sequential(nn.Linear(1024, 64), nn.ReLU(), nn.Linear(64, 1)),
        })

    def forward(self, x):
        f = self.backbone(x)
        return {k: h(f) for k, h in self.heads.items()}
