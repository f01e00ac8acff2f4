import torch.nn as nn


class FingerprintMPNN(nn.Module):
    """Not a real message-passing net: an MLP over precomputed message-passing fingerprints."""

    def __init__(self, in_dim=2048, hidden=512, depth=3):
        super().__init__()
        layers, d = [], in_dim
        for _ in range(depth):
            layers += [nn.Linear(d, hidden), nn.SiLU(), nn.Dropout(0.1)]
            d = hidden
        layers.append(nn.Linear(d, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x)
