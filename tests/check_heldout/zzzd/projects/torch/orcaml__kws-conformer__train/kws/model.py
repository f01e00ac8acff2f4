import torch
import torch.nn as nn


class ConvModule(nn.Module):
    def __init__(self, dim, kernel=15):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.pw1 = nn.Conv1d(dim, 2 * dim, 1)
        self.dw = nn.Conv1d(dim, dim, kernel, padding=kernel // 2, groups=dim)
        self.bn = nn.BatchNorm1d(dim)
        self.pw2 = nn.Conv1d(dim, dim, 1)

    def forward(self, x):
        h = self.norm(x).transpose(1, 2)
        h = nn.functional.glu(self.pw1(h), dim=1)
        h = self.pw2(nn.functional.silu(self.bn(self.dw(h))))
        return x + h.transpose(1, 2)


class TinyConformer(nn.Module):
    def __init__(self, n_mels=40, dim=96, n_layers=2, n_classes=12):
        super().__init__()
        self.proj = nn.Linear(n_mels, dim)
        self.layers = nn.ModuleList()
        for _ in range(n_layers):
            self.layers.append(nn.TransformerEncoderLayer(dim, 4, dim * 2, batch_first=True))
            self.layers.append(ConvModule(dim))
        self.head = nn.Linear(dim, n_classes)

    def forward(self, feats):
        h = self.proj(feats)
        for layer in self.layers:
            h = layer(h)
        return self.head(h.mean(dim=1))
