import torch.nn as nn

from .registry import MODELS


def _block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


@MODELS.register("convnet_s")
class ConvNetS(nn.Module):
    def __init__(self, num_classes=10, width=32):
        super().__init__()
        self.features = nn.Sequential(_block(3, width), nn.MaxPool2d(2),
                                      _block(width, 2 * width), nn.MaxPool2d(2),
                                      _block(2 * width, 4 * width), nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(4 * width, num_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))
