import torch
from torch import nn


class SASRec(nn.Module):
    def __init__(self, num_items, hidden, blocks, heads, dropout, max_len=50):
        super().__init__()
        self.item_emb = nn.Embedding(num_items, hidden, padding_idx=0)
        self.pos_emb = nn.Embedding(max_len, hidden)
        layer = nn.TransformerEncoderLayer(hidden, heads, hidden * 2, dropout, batch_first=True)
        self.blocks = nn.TransformerEncoder(layer, blocks)
        self.norm = nn.LayerNorm(hidden)

    def forward(self, x):
        pos = torch.arange(x.shape[1], device=x.device)
        h = self.item_emb(x) + self.pos_emb(pos)[None]
        causal = torch.triu(torch.ones(x.shape[1], x.shape[1], dtype=torch.bool, device=x.device), 1)
        h = self.norm(self.blocks(h, mask=causal, src_key_padding_mask=(x == 0)))
        return h @ self.item_emb.weight.T
