import torch.nn as nn


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout),
                         nn.ReLU(inplace=True), nn.MaxPool2d(2))


class SmallNet(nn.Module):
    def __init__(self, n_classes=2, width=32):
        super().__init__()
        self.features = nn.Sequential(conv_block(3, width), conv_block(width, width * 2),
                                      nn.AdaptiveAvgPool2d(1))
        self.head = nn.Linear(width * 2, n_classes)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))
