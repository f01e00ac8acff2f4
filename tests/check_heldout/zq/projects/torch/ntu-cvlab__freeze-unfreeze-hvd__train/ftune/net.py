import torch.nn as nn


class DefectNet(nn.Module):
    def __init__(self, num_classes, width=48):
        super().__init__()
        self.backbone = nn.Sequential(
            nn.Conv2d(3, width, 5, 2, 2), nn.GroupNorm(8, width), nn.GELU(),
            nn.Conv2d(width, 2 * width, 3, 2, 1), nn.GroupNorm(8, 2 * width), nn.GELU(),
            nn.Conv2d(2 * width, 4 * width, 3, 2, 1), nn.GroupNorm(8, 4 * width), nn.GELU(),
            nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(4 * width, num_classes))

    def forward(self, x):
        return self.head(self.backbone(x))
