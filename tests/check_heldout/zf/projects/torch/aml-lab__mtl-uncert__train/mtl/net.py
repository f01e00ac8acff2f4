import torch.nn as nn


class SharedTrunk(nn.Module):
    def __init__(self, in_dim, hidden):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(),
                                  nn.Linear(hidden, hidden), nn.ReLU())

    def forward(self, x):
        return self.body(x)


class MultiTaskNet(nn.Module):
    """Trunk + one classification head and one regression head."""

    def __init__(self, in_dim=64, hidden=256, n_classes=10):
        super().__init__()
        self.trunk = SharedTrunk(in_dim, hidden)
        self.cls_head = nn.Linear(hidden, n_classes)
        self.reg_head = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.trunk(x)
        return self.cls_head(h), self.reg_head(h).squeeze(-1)
