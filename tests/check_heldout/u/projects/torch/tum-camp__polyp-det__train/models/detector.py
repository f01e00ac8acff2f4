import torch
import torch.nn as nn
import torchvision


class SingleBoxDetector(nn.Module):
    """Backbone + two heads: polyp present (logit) and one box (x1, y1, x2, y2 in [0, 1])."""

    def __init__(self, backbone="resnet18", pretrained=False):
        super().__init__()
        if backbone == "tiny":
            self.body = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.ReLU(), nn.Conv2d(16, 32, 3, 2, 1), nn.ReLU())
            feat = 32
        else:
            net = getattr(torchvision.models, backbone)(weights="DEFAULT" if pretrained else None)
            self.body = nn.Sequential(*list(net.children())[:-2])
            feat = net.fc.in_features
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.cls = nn.Linear(feat, 1)
        self.reg = nn.Sequential(nn.Linear(feat, 4), nn.Sigmoid())

    def forward(self, x):
        f = self.pool(self.body(x)).flatten(1)
        b = self.reg(f)
        # keep x1 < x2, y1 < y2
        x1, x2 = b[:, 0].minimum(b[:, 2]), b[:, 0].maximum(b[:, 2])
        y1, y2 = b[:, 1].minimum(b[:, 3]), b[:, 1].maximum(b[:, 3])
        return self.cls(f).squeeze(1), torch.stack([x1, y1, x2, y2], 1)
