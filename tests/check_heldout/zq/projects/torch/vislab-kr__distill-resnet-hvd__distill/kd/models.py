import torch.nn as nn


def _block(cin, cout):
    return nn.Sequential(
        nn.Conv2d(cin, cout, 3, padding=1, bias=False),
        nn.BatchNorm2d(cout),
        nn.ReLU(inplace=True),
    )


class ConvNet(nn.Module):
    def __init__(self, widths, num_classes=10):
        super().__init__()
        layers, cin = [], 3
        for i, w in enumerate(widths):
            layers.append(_block(cin, w))
            if i % 2 == 1:
                layers.append(nn.MaxPool2d(2))
            cin = w
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, num_classes)

    def forward(self, x):
        return self.fc(self.pool(self.features(x)).flatten(1))


def build_teacher(num_classes=10):
    return ConvNet([64, 64, 128, 128, 256, 256], num_classes)


def build_student(num_classes=10):
    return ConvNet([16, 32, 64], num_classes)
