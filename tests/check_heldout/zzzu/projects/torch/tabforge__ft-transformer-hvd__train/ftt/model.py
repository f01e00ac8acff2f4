import torch
import torch.nn as nn


class FeatureTokenizer(nn.Module):
    def __init__(self, n_num, cards, d):
        super().__init__()
        self.num_w = nn.Parameter(torch.randn(n_num, d) * 0.02)
        self.num_b = nn.Parameter(torch.zeros(n_num, d))
        self.cat_emb = nn.ModuleList([nn.Embedding(c, d) for c in cards])
        self.cls = nn.Parameter(torch.zeros(1, 1, d))

    def forward(self, x_num, x_cat):
        t_num = x_num.unsqueeze(-1) * self.num_w + self.num_b
        t_cat = torch.stack([e(x_cat[:, i]) for i, e in enumerate(self.cat_emb)], 1)
        tok = torch.cat([t_num, t_cat], 1)
        return torch.cat([self.cls.expand(tok.size(0), -1, -1), tok], 1)


class FTTransformer(nn.Module):
    def __init__(self, n_num, cards, d_token=192, n_blocks=3, n_heads=8, dropout=0.1):
        super().__init__()
        self.tok = FeatureTokenizer(n_num, cards, d_token)
        layer = nn.TransformerEncoderLayer(d_token, n_heads, d_token * 4 // 3, dropout,
                                           batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_blocks)
        self.head = nn.Sequential(nn.LayerNorm(d_token), nn.ReLU(), nn.Linear(d_token, 1))

    def forward(self, x_num, x_cat):
        h = self.encoder(self.tok(x_num, x_cat))
        return self.head(h[:, 0]).squeeze(-1)
