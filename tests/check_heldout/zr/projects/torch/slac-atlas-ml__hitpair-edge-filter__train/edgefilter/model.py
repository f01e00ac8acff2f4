import torch.nn as nn


class EdgeMLP(nn.Module):
    def __init__(self, n_in=14, hidden=256, n_layers=4):
        super().__init__()
        layers = []
        for i in range(n_layers):
            layers += [nn.Linear(n_in if i == 0 else hidden, hidden), nn.LayerNorm(hidden), nn.Tanh()]
        self.net = nn.Sequential(*layers, nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)
