import torch.nn as nn


def conv_bn(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                         nn.SiLU(inplace=True), nn.MaxPool2d(2))


class BoneAgeNet(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.features = nn.Sequential(conv_bn(1, width), conv_bn(width, width * 2),
                                      conv_bn(width * 2, width * 4), conv_bn(width * 4, width * 4))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.head = nn.Sequential(nn.Flatten(), nn.Dropout(0.2), nn.Linear(width * 4, 1))

    def forward(self, x):
        return self.head(self.pool(self.features(x))).squeeze(1)
