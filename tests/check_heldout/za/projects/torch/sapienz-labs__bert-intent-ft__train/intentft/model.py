import torch
from torch import nn


class IntentEncoder(nn.Module):
    def __init__(self, vocab_size, n_labels, d_model=256, n_layers=4, n_heads=4, max_len=64):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, d_model, padding_idx=0)
        self.pos = nn.Embedding(max_len, d_model)
        layer = nn.TransformerEncoderLayer(d_model, n_heads, 4 * d_model, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, n_layers)
        self.norm = nn.LayerNorm(d_model)
        self.head = nn.Linear(d_model, n_labels)

    def forward(self, x, mask):
        pos = torch.arange(x.size(1), device=x.device).unsqueeze(0)
        h = self.encoder(self.tok(x) + self.pos(pos), src_key_padding_mask=~mask)
        return self.head(self.norm(h[:, 0]))
