import torch
import torch.nn as nn


class FieldMLP(nn.Module):
    """u(x, y, t) surrogate: tanh MLP on normalised coordinates."""

    def __init__(self, width=64, depth=5):
        super().__init__()
        layers, d_in = [], 3
        for _ in range(depth):
            layers += [nn.Linear(d_in, width), nn.Tanh()]
            d_in = width
        layers.append(nn.Linear(d_in, 1))
        self.net = nn.Sequential(*layers)
        for m in self.net:
            if isinstance(m, nn.Linear):
                nn.init.xavier_normal_(m.weight)
                nn.init.zeros_(m.bias)

    def forward(self, xyt):
        return self.net(xyt)
