import torch.nn as nn


class MCDropoutMLP(nn.Module):
    def __init__(self, d_in, n_cls, hidden=128, p=0.5):
        super().__init__()
        self.f = nn.Sequential(nn.Linear(d_in, hidden), nn.ReLU(), nn.Dropout(p),
                               nn.Linear(hidden, hidden), nn.ReLU(), nn.Dropout(p),
                               nn.Linear(hidden, n_cls))

    def forward(self, x):
        return self.f(x)
