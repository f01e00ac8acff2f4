import torch.nn as nn


class Block(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.f = nn.Sequential(nn.Conv2d(c, c, 3, 1, 1, bias=False), nn.BatchNorm2d(c), nn.ReLU(True),
                               nn.Conv2d(c, c, 3, 1, 1, bias=False), nn.BatchNorm2d(c))
        self.act = nn.ReLU(True)

    def forward(self, x):
        return self.act(x + self.f(x))


class PoseNetW16(nn.Module):
    """Single-branch stand-in for HRNet-W16: stem to 1/4 resolution, residual blocks, 1x1 head."""

    def __init__(self, num_joints=16, width=16, blocks=4):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 2, 1), nn.BatchNorm2d(width), nn.ReLU(True),
                                  nn.Conv2d(width, width, 3, 2, 1), nn.BatchNorm2d(width), nn.ReLU(True))
        self.body = nn.Sequential(*[Block(width) for _ in range(blocks)])
        self.head = nn.Conv2d(width, num_joints, 1)

    def forward(self, x):
        return self.head(self.body(self.stem(x)))
