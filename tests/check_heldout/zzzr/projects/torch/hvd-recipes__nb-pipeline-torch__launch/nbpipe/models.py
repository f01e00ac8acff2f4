import torch.nn as nn


def build_model(d_in, n_out=2):
    return nn.Sequential(nn.Linear(d_in, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, n_out))
