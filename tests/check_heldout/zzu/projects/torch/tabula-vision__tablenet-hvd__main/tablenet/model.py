import torch
import torch.nn as nn
import torch.nn.functional as F


def down(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, 2, 1), nn.BatchNorm2d(cout), nn.ReLU(inplace=True))


class TableNet(nn.Module):
    """Shared encoder, two decoders: table region mask and column mask."""

    def __init__(self, width=32):
        super().__init__()
        self.encoder = nn.Sequential(down(3, width), down(width, 2 * width), down(2 * width, 4 * width),
                                     down(4 * width, 8 * width))
        self.table_head = self._decoder(8 * width)
        self.column_head = self._decoder(8 * width)

    @staticmethod
    def _decoder(c):
        return nn.Sequential(nn.Conv2d(c, c, 1), nn.ReLU(inplace=True), nn.Dropout(0.2), nn.Conv2d(c, 1, 1))

    def forward(self, x):
        f = self.encoder(x)
        size = x.shape[-2:]
        table = F.interpolate(self.table_head(f), size=size, mode="bilinear", align_corners=False)
        column = F.interpolate(self.column_head(f), size=size, mode="bilinear", align_corners=False)
        return table, column
