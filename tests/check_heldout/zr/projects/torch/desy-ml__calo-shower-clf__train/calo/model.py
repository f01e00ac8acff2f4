import torch.nn as nn


def conv_block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.GroupNorm(8, cout), nn.SiLU(),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.GroupNorm(8, cout), nn.SiLU(),
                         nn.MaxPool2d(2))


class ShowerCNN(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.features = nn.Sequential(conv_block(1, width), conv_block(width, 2 * width),
                                      conv_block(2 * width, 4 * width), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(4 * width, 1)

    def forward(self, x):
        return self.classifier(self.features(x).flatten(1)).squeeze(1)
