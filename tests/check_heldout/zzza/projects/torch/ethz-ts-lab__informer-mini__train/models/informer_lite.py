import math

import torch
import torch.nn as nn


class PositionalEmbedding(nn.Module):
    def __init__(self, d_model, max_len=2048):
        super().__init__()
        pe = torch.zeros(max_len, d_model)
        pos = torch.arange(max_len).unsqueeze(1).float()
        div = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(pos * div)
        pe[:, 1::2] = torch.cos(pos * div)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return self.pe[:, :x.size(1)]


class InformerLite(nn.Module):
    """Encoder-only transformer with a direct multi-horizon head (no ProbSparse attention)."""

    def __init__(self, enc_in, seq_len, pred_len, d_model=64, n_heads=4, e_layers=2, dropout=0.05):
        super().__init__()
        self.value = nn.Linear(enc_in, d_model)
        self.pos = PositionalEmbedding(d_model)
        layer = nn.TransformerEncoderLayer(d_model, n_heads, 4 * d_model, dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, e_layers)
        self.head = nn.Linear(seq_len * d_model, pred_len * enc_in)
        self.pred_len, self.enc_in = pred_len, enc_in

    def forward(self, x):
        h = self.encoder(self.value(x) + self.pos(x))
        return self.head(h.flatten(1)).view(-1, self.pred_len, self.enc_in)
