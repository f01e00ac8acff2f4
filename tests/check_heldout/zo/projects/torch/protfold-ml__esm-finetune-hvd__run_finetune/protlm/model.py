import torch
import torch.nn as nn
import torch.nn.functional as F

from .alphabet import PAD


class ProteinEncoder(nn.Module):
    def __init__(self, vocab, dim=320, layers=6, heads=8, n_classes=10, dropout=0.1):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=PAD)
        self.pos = nn.Embedding(1024, dim)
        enc = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout, batch_first=True, norm_first=True)
        self.encoder = nn.TransformerEncoder(enc, layers)
        self.head = nn.Sequential(nn.LayerNorm(dim), nn.Dropout(dropout), nn.Linear(dim, n_classes))

    def forward(self, tokens):
        pad = tokens.eq(PAD)
        pos = torch.arange(tokens.size(1), device=tokens.device)
        h = self.encoder(self.embed(tokens) + self.pos(pos), src_key_padding_mask=pad)
        h = h.masked_fill(pad.unsqueeze(-1), 0.0).sum(1) / (~pad).sum(1, keepdim=True)
        return self.head(h)


def focal_loss(logits, target, gamma=2.0, alpha=None):
    logp = F.log_softmax(logits.float(), -1)
    ce = F.nll_loss(logp, target, weight=alpha, reduction="none")
    pt = logp.gather(1, target[:, None]).squeeze(1).exp()
    return ((1 - pt) ** gamma * ce).mean()
