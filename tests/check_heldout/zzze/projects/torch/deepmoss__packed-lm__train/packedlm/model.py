import torch
import torch.nn as nn


class CausalLM(nn.Module):
    def __init__(self, vocab, d=256, layers=4, heads=4, ctx=512):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.pos = nn.Parameter(torch.zeros(1, ctx, d))
        enc = nn.TransformerEncoderLayer(d, heads, 4 * d, 0.1, batch_first=True)
        self.body = nn.TransformerEncoder(enc, layers)
        self.norm = nn.LayerNorm(d)
        self.proj = nn.Linear(d, vocab)

    def forward(self, x):
        T = x.size(1)
        mask = torch.ones(T, T, dtype=torch.bool, device=x.device).triu(1)
        return self.proj(self.norm(self.body(self.embed(x) + self.pos[:, :T], mask=mask)))
