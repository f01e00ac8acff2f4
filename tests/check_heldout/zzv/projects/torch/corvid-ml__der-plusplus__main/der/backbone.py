import torch.nn as nn


def mlp(in_dim, n_classes, hidden=256):
    return nn.Sequential(nn.Flatten(), nn.Linear(in_dim, hidden), nn.ReLU(),
                         nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, n_classes))
