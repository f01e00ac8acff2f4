import torch.nn as nn


class BowRegressor(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.emb = nn.EmbeddingBag(cfg.vocab_size, cfg.emb_dim, mode="mean")
        layers, d = [], cfg.emb_dim
        for h in cfg.hidden:
            layers += [nn.Linear(d, h), nn.GELU(), nn.Dropout(0.1)]
            d = h
        self.head = nn.Sequential(*layers, nn.Linear(d, 1))

    def forward(self, tokens, offsets):
        return self.head(self.emb(tokens, offsets)).squeeze(-1)
