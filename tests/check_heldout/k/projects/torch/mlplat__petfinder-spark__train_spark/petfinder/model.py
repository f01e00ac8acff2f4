import torch
import torch.nn as nn


class TabularMLP(nn.Module):
    def __init__(self, cardinalities, n_numeric, emb_dim=16, hidden=(256, 128), n_classes=5):
        super().__init__()
        self.embs = nn.ModuleList(nn.Embedding(c, emb_dim) for c in cardinalities)
        layers, width = [], emb_dim * len(cardinalities) + n_numeric
        for h in hidden:
            layers += [nn.Linear(width, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Dropout(0.2)]
            width = h
        layers.append(nn.Linear(width, n_classes))
        self.mlp = nn.Sequential(*layers)

    def forward(self, cats, nums):
        embedded = [emb(cats[:, i]) for i, emb in enumerate(self.embs)]
        return self.mlp(torch.cat(embedded + [nums], dim=1))


def quadratic_kappa(pred, target, n_classes=5):
    """Cohen's quadratic weighted kappa, the competition metric."""
    conf = torch.zeros(n_classes, n_classes, dtype=torch.float64)
    for p, t in zip(pred.tolist(), target.tolist()):
        conf[t, p] += 1
    idx = torch.arange(n_classes, dtype=torch.float64)
    weights = (idx[:, None] - idx[None, :]) ** 2 / (n_classes - 1) ** 2
    expected = torch.outer(conf.sum(1), conf.sum(0)) / conf.sum()
    return (1 - (weights * conf).sum() / (weights * expected).sum()).item()
