import torch
import torch.nn as nn
import torch.nn.functional as F

from .genotype import PRIMITIVES


class Zero(nn.Module):
    def forward(self, x):
        return x.mul(0.0)


def make_op(name, c):
    if name == "none":
        return Zero()
    if name == "skip_connect":
        return nn.Identity()
    if name == "avg_pool_3x3":
        return nn.AvgPool2d(3, 1, 1, count_include_pad=False)
    dil = 2 if name.startswith("dil") else 1
    return nn.Sequential(nn.ReLU(), nn.Conv2d(c, c, 3, 1, dil, dilation=dil, bias=False),
                         nn.BatchNorm2d(c, affine=False))


class MixedOp(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.ops = nn.ModuleList([make_op(p, c) for p in PRIMITIVES])

    def forward(self, x, w):
        return sum(wi * op(x) for wi, op in zip(w, self.ops))


class SearchNetwork(nn.Module):
    """A chain of mixed edges; one alpha row per edge."""

    def __init__(self, c=16, num_edges=6, num_classes=10):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, c, 3, padding=1, bias=False), nn.BatchNorm2d(c))
        self.edges = nn.ModuleList([MixedOp(c) for _ in range(num_edges)])
        self.classifier = nn.Linear(c, num_classes)
        self.alphas = nn.Parameter(1e-3 * torch.randn(num_edges, len(PRIMITIVES)))

    def forward(self, x):
        x = self.stem(x)
        for edge, a in zip(self.edges, F.softmax(self.alphas, dim=-1)):
            x = edge(x, a)
        return self.classifier(F.adaptive_avg_pool2d(x, 1).flatten(1))

    def named_weights(self):
        return [(n, p) for n, p in self.named_parameters() if n != "alphas"]

    def weights(self):
        return [p for _, p in self.named_weights()]

    def arch_parameters(self):
        return [self.alphas]
