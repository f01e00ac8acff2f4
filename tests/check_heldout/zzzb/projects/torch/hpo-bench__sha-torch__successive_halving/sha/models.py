import torch.nn as nn


def build_mlp(in_dim, num_classes, hidden, depth, dropout):
    layers, d = [], in_dim
    for _ in range(depth):
        layers += [nn.Linear(d, hidden), nn.ReLU(), nn.Dropout(dropout)]
        d = hidden
    layers.append(nn.Linear(d, num_classes))
    return nn.Sequential(*layers)
