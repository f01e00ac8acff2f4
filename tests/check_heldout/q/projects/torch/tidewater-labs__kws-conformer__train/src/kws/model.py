import torch.nn as nn


class DSConvKWS(nn.Module):
    """Depthwise-separable conv keyword spotter over (n_mfcc, frames) inputs."""

    def __init__(self, n_mfcc, n_classes, channels=64):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv1d(n_mfcc, channels, 5, padding=2), nn.BatchNorm1d(channels), nn.ReLU())
        blocks = []
        for _ in range(3):
            blocks += [nn.Conv1d(channels, channels, 3, padding=1, groups=channels),
                       nn.Conv1d(channels, channels, 1), nn.BatchNorm1d(channels), nn.ReLU()]
        self.body = nn.Sequential(*blocks)
        self.head = nn.Linear(channels, n_classes)

    def forward(self, x):
        return self.head(self.body(self.stem(x)).mean(-1))
