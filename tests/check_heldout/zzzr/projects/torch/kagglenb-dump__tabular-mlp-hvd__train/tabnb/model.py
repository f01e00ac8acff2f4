import torch.nn as nn


def mlp(n_in, hidden, n_out=2, p=0.1):
    return nn.Sequential(
        nn.Linear(n_in, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Dropout(p),
        nn.Linear(hidden, hidden // 2), nn.ReLU(),
        nn.Linear(hidden // 2, n_out),
    )
