import torch
import torch.nn as nn


class WideAndDeep(nn.Module):
    def __init__(self, n_fields, hash_size, embed_dim, deep_layers):
        super().__init__()
        self.wide = nn.Embedding(hash_size, 1)
        self.wide_bias = nn.Parameter(torch.zeros(1))
        self.embed = nn.Embedding(hash_size, embed_dim)
        nn.init.normal_(self.embed.weight, std=0.01)
        nn.init.zeros_(self.wide.weight)
        layers, d = [], n_fields * embed_dim
        for h in deep_layers:
            layers += [nn.Linear(d, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Dropout(0.2)]
            d = h
        layers.append(nn.Linear(d, 1))
        self.deep = nn.Sequential(*layers)

    def forward(self, x):
        wide = self.wide(x).sum(dim=1).squeeze(-1) + self.wide_bias
        deep = self.deep(self.embed(x).flatten(1)).squeeze(-1)
        return wide + deep

    def wide_named_params(self):
        return [(n, p) for n, p in self.named_parameters() if n.startswith("wide")]

    def deep_named_params(self):
        return [(n, p) for n, p in self.named_parameters() if not n.startswith("wide")]
