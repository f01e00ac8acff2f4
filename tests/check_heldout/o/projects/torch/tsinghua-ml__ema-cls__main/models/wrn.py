import torch.nn as nn
import torch.nn.functional as F


class BasicBlock(nn.Module):
    def __init__(self, cin, cout, stride, drop=0.0):
        super().__init__()
        self.bn1 = nn.BatchNorm2d(cin)
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.drop = drop
        self.short = None if (cin == cout and stride == 1) else nn.Conv2d(cin, cout, 1, stride, bias=False)

    def forward(self, x):
        o = F.relu(self.bn1(x))
        y = self.conv1(o)
        y = F.relu(self.bn2(y))
        if self.drop > 0:
            y = F.dropout(y, p=self.drop, training=self.training)
        y = self.conv2(y)
        return y + (x if self.short is None else self.short(o))


class WideResNet(nn.Module):
    def __init__(self, depth=28, width=10, num_classes=10, drop=0.0):
        super().__init__()
        n = (depth - 4) // 6
        ch = [16, 16 * width, 32 * width, 64 * width]
        self.conv = nn.Conv2d(3, ch[0], 3, 1, 1, bias=False)
        layers = []
        for i, stride in enumerate([1, 2, 2]):
            for j in range(n):
                layers.append(BasicBlock(ch[i] if j == 0 else ch[i + 1], ch[i + 1], stride if j == 0 else 1, drop))
        self.blocks = nn.Sequential(*layers)
        self.bn = nn.BatchNorm2d(ch[3])
        self.fc = nn.Linear(ch[3], num_classes)

    def forward(self, x):
        x = self.blocks(self.conv(x))
        x = F.relu(self.bn(x))
        return self.fc(F.adaptive_avg_pool2d(x, 1).flatten(1))
