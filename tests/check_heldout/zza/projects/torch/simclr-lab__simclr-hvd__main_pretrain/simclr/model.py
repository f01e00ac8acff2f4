import torch.nn as nn
import torch.nn.functional as F
from torchvision import models


def cifar_backbone(arch="resnet18"):
    net = getattr(models, arch)(weights=None)
    # 3x3 stem, no max-pool for 32x32 inputs
    net.conv1 = nn.Conv2d(3, 64, kernel_size=3, stride=1, padding=1, bias=False)
    net.maxpool = nn.Identity()
    feat_dim = net.fc.in_features
    net.fc = nn.Identity()
    return net, feat_dim


class SimCLR(nn.Module):
    def __init__(self, arch="resnet18", proj_dim=128, hidden_dim=2048):
        super().__init__()
        self.encoder, feat_dim = cifar_backbone(arch)
        self.projector = nn.Sequential(
            nn.Linear(feat_dim, hidden_dim),
            nn.BatchNorm1d(hidden_dim),
            nn.ReLU(inplace=True),
            nn.Linear(hidden_dim, proj_dim),
        )

    def forward(self, x):
        h = self.encoder(x)
        return F.normalize(self.projector(h), dim=1)
