from torch import nn


def make_mlp(num_features, hidden=(256, 256, 128), dropout=0.1):
    layers, width = [], num_features
    for h in hidden:
        layers += [nn.Linear(width, h), nn.BatchNorm1d(h), nn.SiLU(), nn.Dropout(dropout)]
        width = h
    layers.append(nn.Linear(width, 1))
    return nn.Sequential(*layers)
