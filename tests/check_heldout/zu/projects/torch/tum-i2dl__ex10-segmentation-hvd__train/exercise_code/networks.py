import torch.nn as nn


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class SegmentationNN(nn.Module):
    def __init__(self, num_classes=23, width=32):
        super().__init__()
        self.enc1 = block(3, width)
        self.enc2 = nn.Sequential(nn.MaxPool2d(2), block(width, 2 * width))
        self.dec = nn.Sequential(nn.Upsample(scale_factor=2, mode="bilinear", align_corners=False),
                                 block(2 * width, width))
        self.head = nn.Conv2d(width, num_classes, 1)

    def forward(self, x):
        return self.head(self.dec(self.enc2(self.enc1(x))))
