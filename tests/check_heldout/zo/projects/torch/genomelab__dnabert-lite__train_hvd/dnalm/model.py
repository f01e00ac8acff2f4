import math

import torch
import torch.nn as nn


class SinusoidalPosition(nn.Module):
    def __init__(self, d_model, max_len=1024):
        super().__init__()
        pos = torch.arange(max_len).unsqueeze(1)
        div = torch.exp(torch.arange(0, d_model, 2) * (-math.log(10000.0) / d_model))
        pe = torch.zeros(max_len, d_model)
        pe[:, 0::2], pe[:, 1::2] = torch.sin(pos * div), torch.cos(pos * div)
        self.register_buffer("pe", pe)

    def forward(self, x):
        return x + self.pe[: x.size(1)]


class DnaEncoderClassifier(nn.Module):
    def __init__(self, vocab_size, d_model=256, n_layers=4, n_heads=8, num_labels=2, pad_id=0):
        super().__init__()
        self.pad_id = pad_id
        self.embed = nn.Embedding(vocab_size, d_model, padding_idx=pad_id)
        self.pos = SinusoidalPosition(d_model)
        layer = nn.TransformerEncoderLayer(d_model, n_heads, 4 * d_model, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers)
        self.norm = nn.LayerNorm(d_model)
        self.cls = nn.Linear(d_model, num_labels)

    def forward(self, ids):
        mask = ids.eq(self.pad_id)
        h = self.encoder(self.pos(self.embed(ids)), src_key_padding_mask=mask)
        return self.cls(self.norm(h[:, 0]))
