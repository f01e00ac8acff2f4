import torch
import torch.nn as nn


def block(cin, cout):
    return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.SiLU(),
                         nn.Conv2d(cout, cout, 3, padding=1), nn.BatchNorm2d(cout), nn.SiLU())


class UNet(nn.Module):
    def __init__(self, cin=2, cout=3, c=32):
        super().__init__()
        self.e1, self.e2, self.e3 = block(cin, c), block(c, 2 * c), block(2 * c, 4 * c)
        self.pool = nn.MaxPool2d(2)
        self.u2 = nn.ConvTranspose2d(4 * c, 2 * c, 2, stride=2)
        self.d2 = block(4 * c, 2 * c)
        self.u1 = nn.ConvTranspose2d(2 * c, c, 2, stride=2)
        self.d1 = block(2 * c, c)
        self.head = nn.Conv2d(c, cout, 1)

    def forward(self, x):
        e1 = self.e1(x)
        e2 = self.e2(self.pool(e1))
        e3 = self.e3(self.pool(e2))
        d2 = self.d2(torch.cat([self.u2(e3), e2], 1))
        d1 = self.d1(torch.cat([self.u1(d2), e1], 1))
        return self.head(d1)


def divergence(uv):
    """Central-difference divergence of the (u, v) channels on a unit-spaced grid."""
    du_dx = (uv[:, 0, 1:-1, 2:] - uv[:, 0, 1:-1, :-2]) / 2
    dv_dy = (uv[:, 1, 2:, 1:-1] - uv[:, 1, :-2, 1:-1]) / 2
    return du_dx + dv_dy
