import torch
import torch.nn as nn


class PointerGenerator(nn.Module):
    """Compact LSTM encoder-decoder with a copy gate (see & et al. 2017)."""

    def __init__(self, vocab, emb, hidden):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb, padding_idx=0)
        self.enc = nn.LSTM(emb, hidden, batch_first=True)
        self.dec = nn.LSTM(emb, hidden, batch_first=True)
        self.attn = nn.Linear(hidden, hidden, bias=False)
        self.gen = nn.Linear(2 * hidden, vocab)
        self.p_gen = nn.Linear(2 * hidden, 1)

    def forward(self, src, tgt_in):
        H, st = self.enc(self.emb(src))
        D, _ = self.dec(self.emb(tgt_in), st)
        scores = torch.bmm(self.attn(D), H.transpose(1, 2)).masked_fill(src.eq(0).unsqueeze(1), -1e9)
        a = scores.softmax(-1)
        ctx = torch.bmm(a, H)
        feat = torch.cat([D, ctx], -1)
        p = torch.sigmoid(self.p_gen(feat))
        vocab_dist = p * self.gen(feat).softmax(-1)
        copy = torch.zeros_like(vocab_dist).scatter_add_(2, src.unsqueeze(1).expand_as(a), (1 - p) * a)
        return (vocab_dist + copy + 1e-12).log()
