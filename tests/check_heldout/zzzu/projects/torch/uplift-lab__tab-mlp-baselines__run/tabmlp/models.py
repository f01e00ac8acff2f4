import torch.nn as nn


class MLP(nn.Module):
    def __init__(self, d_in, hidden, dropout):
        super().__init__()
        layers, d = [], d_in
        for h in hidden:
            layers += [nn.Linear(d, h), nn.ReLU(), nn.Dropout(dropout)]
            d = h
        layers.append(nn.Linear(d, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x).squeeze(-1)


class ResBlock(nn.Module):
    def __init__(self, d, dropout):
        super().__init__()
        self.f = nn.Sequential(nn.BatchNorm1d(d), nn.Linear(d, 2 * d), nn.ReLU(), nn.Dropout(dropout),
                               nn.Linear(2 * d, d), nn.Dropout(dropout))

    def forward(self, x):
        return x + self.f(x)


class ResNet(nn.Module):
    def __init__(self, d_in, hidden, dropout):
        super().__init__()
        d = hidden[0]
        self.inp = nn.Linear(d_in, d)
        self.blocks = nn.Sequential(*[ResBlock(d, dropout) for _ in hidden])
        self.out = nn.Sequential(nn.BatchNorm1d(d), nn.ReLU(), nn.Linear(d, 1))

    def forward(self, x):
        return self.out(self.blocks(self.inp(x))).squeeze(-1)


def build(name, d_in, hidden, dropout):
    return {"mlp": MLP, "resnet": ResNet}[name](d_in, hidden, dropout)
