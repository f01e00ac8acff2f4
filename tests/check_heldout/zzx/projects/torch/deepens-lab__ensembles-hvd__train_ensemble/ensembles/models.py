import torch
import torch.nn as nn


def _member(num_classes: int, width: int) -> nn.Module:
    return nn.Sequential(
        nn.Conv2d(3, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(inplace=True),
        nn.MaxPool2d(2),
        nn.Conv2d(width, 2 * width, 3, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(inplace=True),
        nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(2 * width, num_classes),
    )


class DeepEnsemble(nn.Module):
    """M independently initialised members, trained on the same batches."""

    def __init__(self, num_members: int = 5, num_classes: int = 10, width: int = 32):
        super().__init__()
        self.members = nn.ModuleList(_member(num_classes, width) for _ in range(num_members))

    def forward(self, x):
        return torch.stack([m(x) for m in self.members], dim=0)  # [M, B, C]

    @staticmethod
    def predictive(logits):
        return logits.softmax(-1).mean(0)
