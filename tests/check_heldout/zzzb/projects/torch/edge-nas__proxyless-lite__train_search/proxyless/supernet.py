import torch
import torch.nn as nn
import torch.nn.functional as F

CANDIDATE_OPS = ["mb3_e3", "mb3_e6", "mb5_e3", "mb5_e6", "zero"]


class MBConv(nn.Module):
    def __init__(self, c, k, expand):
        super().__init__()
        h = c * expand
        self.block = nn.Sequential(
            nn.Conv2d(c, h, 1, bias=False), nn.BatchNorm2d(h), nn.ReLU6(inplace=True),
            nn.Conv2d(h, h, k, padding=k // 2, groups=h, bias=False), nn.BatchNorm2d(h), nn.ReLU6(inplace=True),
            nn.Conv2d(h, c, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        return x + self.block(x)


def build_op(name, c):
    if name == "zero":
        return nn.Identity()  # skip the layer
    k, e = int(name[2]), int(name.split("_e")[1])
    return MBConv(c, k, e)


class MixedLayer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.ops = nn.ModuleList([build_op(n, c) for n in CANDIDATE_OPS])
        self.alpha = nn.Parameter(torch.zeros(len(CANDIDATE_OPS)))

    def forward(self, x):
        w = F.softmax(self.alpha, dim=0)
        return sum(wi * op(x) for wi, op in zip(w, self.ops))


class ProxylessSuperNet(nn.Module):
    def __init__(self, width=16, depth=4, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 3, 2, 1, bias=False), nn.BatchNorm2d(width), nn.ReLU6())
        self.layers = nn.ModuleList([MixedLayer(width) for _ in range(depth)])
        self.head = nn.Linear(width, num_classes)

    def forward(self, x):
        x = self.stem(x)
        for layer in self.layers:
            x = layer(x)
        return self.head(x.mean((2, 3)))

    def named_weights(self):
        return [(n, p) for n, p in self.named_parameters() if not n.endswith("alpha")]

    def arch_parameters(self):
        return [l.alpha for l in self.layers]

    def export(self):
        return [CANDIDATE_OPS[int(l.alpha.argmax())] for l in self.layers]
