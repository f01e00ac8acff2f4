import torch
from torch import nn


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class SmallUNet(nn.Module):
    def __init__(self, width=16):
        super().__init__()
        self.enc1, self.enc2 = block(1, width), block(width, 2 * width)
        self.pool = nn.MaxPool2d(2)
        self.up = nn.ConvTranspose2d(2 * width, width, 2, stride=2)
        self.dec1 = block(2 * width, width)
        self.head = nn.Conv2d(width, 1, 1)

    def forward(self, x):
        e1 = self.enc1(x)
        e2 = self.enc2(self.pool(e1))
        return self.head(self.dec1(torch.cat([self.up(e2), e1], dim=1)))


def dice_score(logits, target, eps=1e-6):
    pred = (torch.sigmoid(logits) > 0.5).float()
    inter = (pred * target).sum(dim=(1, 2, 3))
    return (2 * inter + eps) / (pred.sum(dim=(1, 2, 3)) + target.sum(dim=(1, 2, 3)) + eps)
