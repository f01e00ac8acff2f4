import torch
from torch import nn


class CenterNetLite(nn.Module):
    """Stride-4 heatmap head on a small conv backbone."""

    def __init__(self, width=32):
        super().__init__()
        w = width
        self.backbone = nn.Sequential(
            nn.Conv2d(1, w, 3, stride=2, padding=1), nn.BatchNorm2d(w), nn.ReLU(inplace=True),
            nn.Conv2d(w, 2 * w, 3, stride=2, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(inplace=True),
            nn.Conv2d(2 * w, 2 * w, 3, padding=1), nn.BatchNorm2d(2 * w), nn.ReLU(inplace=True))
        self.heat = nn.Sequential(nn.Conv2d(2 * w, w, 3, padding=1), nn.ReLU(inplace=True), nn.Conv2d(w, 1, 1))
        nn.init.constant_(self.heat[-1].bias, -2.19)

    def forward(self, x):
        return self.heat(self.backbone(x))


def focal_heatmap_loss(logits, target, alpha=2.0, beta=4.0):
    pred = torch.sigmoid(logits).clamp(1e-4, 1 - 1e-4)
    pos = target.eq(1).float()
    neg = 1.0 - pos
    pos_loss = torch.log(pred) * (1 - pred) ** alpha * pos
    neg_loss = torch.log(1 - pred) * pred ** alpha * (1 - target) ** beta * neg
    n_pos = pos.sum().clamp(min=1.0)
    return -(pos_loss.sum() + neg_loss.sum()) / n_pos
