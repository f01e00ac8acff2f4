import torch.nn as nn


def _block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.MaxPool2d(2))


class CropNet(nn.Module):
    def __init__(self, num_classes=36, width=32):
        super().__init__()
        self.features = nn.Sequential(_block(1, width), _block(width, width * 2), _block(width * 2, width * 4))
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(width * 4, num_classes))

    def forward(self, x):
        return self.head(self.features(x))
