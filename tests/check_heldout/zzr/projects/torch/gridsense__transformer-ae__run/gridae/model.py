import math

import torch
from torch import nn


class PositionalEncoding(nn.Module):
    def __init__(self, d_model, max_len=2048):
        super().__init__()
        pos = torch.arange(max_len).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return x + self.pe[: x.size(1)]


class TransformerAE(nn.Module):
    def __init__(self, n_feat, d_model=64, nhead=4, layers=2):
        super().__init__()
        self.inp = nn.Linear(n_feat, d_model)
        self.pos = PositionalEncoding(d_model)
        enc_layer = nn.TransformerEncoderLayer(d_model, nhead, 4 * d_model, 0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(enc_layer, layers)
        self.out = nn.Linear(d_model, n_feat)

    def forward(self, x):
        return self.out(self.encoder(self.pos(self.inp(x))))
