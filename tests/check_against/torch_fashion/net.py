"""A small convolutional classifier for 28 x 28 grey images."""
from torch import nn


def make():
    return nn.Sequential(
        nn.Conv2d(1, 8, 5, stride=2), nn.BatchNorm2d(8), nn.ReLU(),
        nn.Conv2d(8, 16, 3, stride=2), nn.ReLU(), nn.Dropout(0.2),
        nn.Flatten(), nn.Linear(16 * 5 * 5, 64), nn.ReLU(), nn.Linear(64, 10))
