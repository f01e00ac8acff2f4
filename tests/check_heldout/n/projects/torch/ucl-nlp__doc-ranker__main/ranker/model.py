import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, vocab_size, dim=256, layers=2, heads=4, max_len=256):
        super().__init__()
        self.tok = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.pos = nn.Embedding(max_len, dim)
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, 0.1, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, layers)
        self.proj = nn.Linear(dim, dim)

    def forward(self, ids):
        mask = ids == 0
        pos = torch.arange(ids.size(1), device=ids.device).unsqueeze(0)
        h = self.enc(self.tok(ids) + self.pos(pos), src_key_padding_mask=mask)
        h = h.masked_fill(mask.unsqueeze(-1), 0.0).sum(1) / (~mask).sum(1, keepdim=True).clamp_min(1)
        return F.normalize(self.proj(h), dim=-1)


class DualEncoder(nn.Module):
    def __init__(self, vocab_size, dim=256, temperature=0.05):
        super().__init__()
        self.q_enc = Encoder(vocab_size, dim)
        self.d_enc = Encoder(vocab_size, dim)
        self.temperature = temperature

    def forward(self, q, d):
        """In-batch negatives: logits[i, j] = sim(q_i, d_j)."""
        return self.q_enc(q) @ self.d_enc(d).t() / self.temperature
