import torch
from torch import nn


class ConvBlock(nn.Module):
    def __init__(self, dim, kernel=15):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.dw = nn.Conv1d(dim, dim, kernel, padding=kernel // 2, groups=dim)
        self.pw = nn.Conv1d(dim, dim, 1)

    def forward(self, x):
        y = self.norm(x).transpose(1, 2)
        return x + self.pw(torch.nn.functional.silu(self.dw(y))).transpose(1, 2)


class TinyConformer(nn.Module):
    def __init__(self, n_mels=40, dim=144, blocks=4, n_classes=12):
        super().__init__()
        self.inp = nn.Linear(n_mels, dim)
        self.attn = nn.ModuleList(nn.TransformerEncoderLayer(dim, 4, 4 * dim, 0.1, batch_first=True)
                                  for _ in range(blocks))
        self.conv = nn.ModuleList(ConvBlock(dim) for _ in range(blocks))
        self.cls = nn.Linear(dim, n_classes)

    def forward(self, x):
        h = self.inp(x.transpose(1, 2))
        for attn, conv in zip(self.attn, self.conv):
            h = conv(attn(h))
        return self.cls(h.mean(1))
