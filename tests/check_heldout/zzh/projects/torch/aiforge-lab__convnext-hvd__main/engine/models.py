import torch.nn as nn
from torch.utils.checkpoint import checkpoint


class ConvNeXtBlock(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.dw = nn.Conv2d(dim, dim, 7, padding=3, groups=dim)
        self.norm = nn.GroupNorm(1, dim)
        self.pw1, self.act, self.pw2 = nn.Conv2d(dim, 4 * dim, 1), nn.GELU(), nn.Conv2d(4 * dim, dim, 1)

    def forward(self, x):
        return x + self.pw2(self.act(self.pw1(self.norm(self.dw(x)))))


class ConvNeXtTiny(nn.Module):
    def __init__(self, num_classes=100, dims=(48, 96, 192, 384), depths=(2, 2, 6, 2), grad_ckpt=False):
        super().__init__()
        self.grad_ckpt = grad_ckpt
        layers, c_in = [], 3
        for i, (d, n) in enumerate(zip(dims, depths)):
            layers.append(nn.Conv2d(c_in, d, 4 if i == 0 else 2, stride=4 if i == 0 else 2))
            layers.extend(ConvNeXtBlock(d) for _ in range(n))
            c_in = d
        self.features = nn.ModuleList(layers)
        self.head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.LayerNorm(c_in), nn.Linear(c_in, num_classes))

    def forward(self, x):
        for layer in self.features:
            if self.grad_ckpt and self.training and isinstance(layer, ConvNeXtBlock):
                x = checkpoint(layer, x, use_reentrant=False)
            else:
                x = layer(x)
        return self.head(x)
