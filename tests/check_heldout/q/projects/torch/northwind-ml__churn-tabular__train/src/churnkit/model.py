import torch.nn as nn

_REGISTRY = {}


def register(name):
    def deco(cls):
        _REGISTRY[name] = cls
        return cls
    return deco


@register("mlp")
class ChurnMLP(nn.Module):
    def __init__(self, n_features, hidden=(256, 128), dropout=0.1):
        super().__init__()
        layers, width = [], n_features
        for h in hidden:
            layers += [nn.Linear(width, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Dropout(dropout)]
            width = h
        layers.append(nn.Linear(width, 1))
        self.net = nn.Sequential(*layers)

    def forward(self, x):
        return self.net(x).squeeze(-1)


def build_model(name, **kwargs):
    return _REGISTRY[name](**kwargs)
