from torch import nn


def lesion_net(n_classes, width=32):
    def stage(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout), nn.SiLU(),
                             nn.MaxPool2d(2))
    return nn.Sequential(stage(3, width), stage(width, 2 * width), stage(2 * width, 4 * width),
                         stage(4 * width, 4 * width), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
                         nn.Dropout(0.2), nn.Linear(4 * width, n_classes))
