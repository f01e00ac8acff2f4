import torch
import torch.nn as nn


class PointNetTagger(nn.Module):
    """Permutation-invariant jet tagger: shared per-particle MLP + masked max/mean pooling."""

    def __init__(self, in_features=7, hidden=(64, 128, 256), dropout=0.1):
        super().__init__()
        layers, c = [], in_features
        for h in hidden:
            layers += [nn.Conv1d(c, h, 1), nn.BatchNorm1d(h), nn.ReLU()]
            c = h
        self.phi = nn.Sequential(*layers)
        self.head = nn.Sequential(nn.Linear(2 * c, 128), nn.ReLU(), nn.Dropout(dropout), nn.Linear(128, 1))

    def forward(self, x):
        # x: (B, P, F); zero-padded particles have pT == 0 in feature 0
        mask = (x[..., 0] != 0).float().unsqueeze(1)
        h = self.phi(x.transpose(1, 2)) * mask
        h_max = h.max(dim=2).values
        h_mean = h.sum(dim=2) / mask.sum(dim=2).clamp(min=1.0)
        return self.head(torch.cat([h_max, h_mean], dim=1)).squeeze(1)
