import torch
import torch.nn as nn


class FeatureTokenizer(nn.Module):
    def __init__(self, n_num, cat_cardinalities, d_token):
        super().__init__()
        self.num_weight = nn.Parameter(torch.randn(n_num, d_token) * 0.02)
        self.num_bias = nn.Parameter(torch.zeros(n_num, d_token))
        self.cat_embeds = nn.ModuleList([nn.Embedding(c, d_token) for c in cat_cardinalities])
        self.cls = nn.Parameter(torch.zeros(1, 1, d_token))

    def forward(self, x_num, x_cat):
        tokens = [x_num.unsqueeze(-1) * self.num_weight + self.num_bias]
        if len(self.cat_embeds):
            tokens.append(torch.stack([e(x_cat[:, i]) for i, e in enumerate(self.cat_embeds)], 1))
        t = torch.cat(tokens, 1)
        return torch.cat([self.cls.expand(t.size(0), -1, -1), t], 1)


class FTTransformer(nn.Module):
    def __init__(self, n_num, cat_cardinalities, n_classes, d_token=64, n_layers=3, n_heads=8, dropout=0.1):
        super().__init__()
        self.tokenizer = FeatureTokenizer(n_num, cat_cardinalities, d_token)
        layer = nn.TransformerEncoderLayer(d_token, n_heads, 4 * d_token, dropout, batch_first=True, norm_first=True)
        self.backbone = nn.TransformerEncoder(layer, n_layers)
        self.head = nn.Sequential(nn.LayerNorm(d_token), nn.ReLU(), nn.Linear(d_token, n_classes))

    def forward(self, x_num, x_cat):
        h = self.backbone(self.tokenizer(x_num, x_cat))
        return self.head(h[:, 0])

    def freeze_backbone(self, frozen=True):
        for p in list(self.tokenizer.parameters()) + list(self.backbone.parameters()):
            p.requires_grad = not frozen
