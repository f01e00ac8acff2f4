import torch.nn as nn


def txn_mlp(num_features, widths=(256, 128, 64), dropout=0.1):
    layers, d = [nn.BatchNorm1d(num_features)], num_features
    for w in widths:
        layers += [nn.Linear(d, w), nn.GELU(), nn.Dropout(dropout)]
        d = w
    layers.append(nn.Linear(d, 1))
    return nn.Sequential(*layers)
