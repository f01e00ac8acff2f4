import torch.nn as nn
from torchvision import models


class TinyCNN(nn.Module):
    """Used for the smoke runs on the login node."""

    def __init__(self, num_classes=1000):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(16, num_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


def build_model(name):
    if name == "tiny":
        return TinyCNN()
    return getattr(models, name)()
