"""Small IR-ResNet backbone for 112x112 aligned faces (embedding network)."""
import torch
import torch.nn as nn


class IRBlock(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.bn0 = nn.BatchNorm2d(cin)
        self.conv1 = nn.Conv2d(cin, cout, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.prelu = nn.PReLU(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, stride, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        idt = x if self.down is None else self.down(x)
        out = self.prelu(self.bn1(self.conv1(self.bn0(x))))
        out = self.bn2(self.conv2(out))
        return out + idt


class IResNet(nn.Module):
    def __init__(self, layers=(1, 2, 2, 1), widths=(32, 64, 128, 256), emb_dim=256):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, widths[0], 3, 1, 1, bias=False),
                                  nn.BatchNorm2d(widths[0]), nn.PReLU(widths[0]))
        blocks, cin = [], widths[0]
        for n, w in zip(layers, widths):
            for i in range(n):
                blocks.append(IRBlock(cin, w, 2 if i == 0 else 1))
                cin = w
        self.body = nn.Sequential(*blocks)
        self.bn = nn.BatchNorm2d(cin)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(cin, emb_dim)
        self.features = nn.BatchNorm1d(emb_dim)

    def forward(self, x):
        x = self.bn(self.body(self.stem(x)))
        x = self.pool(x).flatten(1)
        return self.features(self.fc(x))


def build_backbone(name="ir18", emb_dim=256):
    if name == "ir18":
        return IResNet((2, 2, 2, 2), emb_dim=emb_dim)
    if name == "ir_tiny":
        return IResNet((1, 1, 1, 1), emb_dim=emb_dim)
    raise KeyError(f"unknown backbone {name}")
