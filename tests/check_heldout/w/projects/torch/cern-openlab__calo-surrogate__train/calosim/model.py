import torch.nn as nn


class ShowerRegressor(nn.Module):
    def __init__(self, n_cond=2, n_out=368, hidden=(256, 512, 512)):
        super().__init__()
        dims = (n_cond,) + tuple(hidden)
        layers = []
        for a, b in zip(dims[:-1], dims[1:]):
            layers += [nn.Linear(a, b), nn.LayerNorm(b), nn.GELU()]
        layers += [nn.Linear(dims[-1], n_out), nn.Softplus()]
        self.net = nn.Sequential(*layers)

    def forward(self, cond):
        return self.net(cond)
