import torch
import torch.nn as nn


def conv_bn(cin, cout, k, s):
    pad = tuple(x // 2 for x in k)
    return nn.Sequential(nn.Conv3d(cin, cout, k, s, pad, bias=False),
                         nn.BatchNorm3d(cout), nn.ReLU(inplace=True))


class SlowFastLite(nn.Module):
    def __init__(self, num_classes, alpha=4, width=16):
        super().__init__()
        self.alpha = alpha
        self.slow = nn.Sequential(conv_bn(3, width, (1, 3, 3), (1, 2, 2)),
                                  conv_bn(width, width * 2, (3, 3, 3), (1, 2, 2)))
        self.fast = nn.Sequential(conv_bn(3, width // 4, (5, 3, 3), (1, 2, 2)),
                                  conv_bn(width // 4, width // 2, (3, 3, 3), (1, 2, 2)))
        self.head = nn.Linear(width * 2 + width // 2, num_classes)
        self.drop = nn.Dropout(0.3)

    def forward(self, x):
        slow_in = x[:, :, ::self.alpha]
        s = self.slow(slow_in).mean(dim=(2, 3, 4))
        f = self.fast(x).mean(dim=(2, 3, 4))
        return self.head(self.drop(torch.cat([s, f], dim=1)))
