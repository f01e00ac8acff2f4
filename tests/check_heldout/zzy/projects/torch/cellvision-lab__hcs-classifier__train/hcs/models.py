import torch.nn as nn


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU(inplace=True), nn.MaxPool2d(2))


class CellNet(nn.Module):
    def __init__(self, in_channels=5, n_classes=12, width=32):
        super().__init__()
        self.features = nn.Sequential(conv_block(in_channels, width), conv_block(width, 2 * width),
                                      conv_block(2 * width, 4 * width), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(4 * width, n_classes)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1))
