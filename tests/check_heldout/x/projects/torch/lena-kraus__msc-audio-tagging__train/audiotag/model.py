import torch.nn as nn


def conv_block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(),
        nn.AvgPool2d(2),
    )


class CNN6(nn.Module):
    """CNN6 from PANNs, shrunk (thesis table 3.1)."""

    def __init__(self, n_mels=64, n_classes=41, width=32):
        super().__init__()
        self.features = nn.Sequential(conv_block(1, width), conv_block(width, 2 * width),
                                      conv_block(2 * width, 4 * width))
        self.dropout = nn.Dropout(0.2)
        self.fc = nn.Linear(4 * width, n_classes)

    def forward(self, x):
        h = self.features(x)
        h = h.mean(dim=2).amax(dim=2)      # mean over mel, max over time
        return self.fc(self.dropout(h))
