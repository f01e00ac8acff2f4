import torch
import torch.nn as nn


class EmbMLP(nn.Module):
    def __init__(self, n_num, cards, d_embed=8, hidden=256, n_layers=3):
        super().__init__()
        self.embeds = nn.ModuleList([nn.Embedding(c, d_embed) for c in cards])
        d = n_num + d_embed * len(cards)
        layers = []
        for _ in range(n_layers):
            layers += [nn.Linear(d, hidden), nn.BatchNorm1d(hidden), nn.ReLU()]
            d = hidden
        self.body = nn.Sequential(*layers)
        self.head = nn.Linear(hidden, 1)

    def forward(self, x_num, x_cat):
        parts = [x_num] + [e(x_cat[:, i]) for i, e in enumerate(self.embeds)]
        return self.head(self.body(torch.cat(parts, 1))).squeeze(-1)

    def embedding_norms(self):
        return [e.weight.norm(dim=1).mean().item() for e in self.embeds]
