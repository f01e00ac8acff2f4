import torch.nn as nn


class SiameseNet(nn.Module):
    def __init__(self, in_ch=1, dim=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(in_ch, 32, 5), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 5), nn.ReLU(), nn.AdaptiveAvgPool2d(2),
            nn.Flatten(), nn.Linear(256, dim))

    def forward(self, a, b):
        return self.net(a), self.net(b)
