import math

import torch
import torch.nn as nn

from .data import PAD, BOS, EOS


class TransformerNMT(nn.Module):
    def __init__(self, vocab_size, d_model=256, heads=4, layers=3, ff=1024, dropout=0.1):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d_model, padding_idx=PAD)
        self.pos = nn.Embedding(512, d_model)
        self.core = nn.Transformer(d_model, heads, layers, layers, ff, dropout, batch_first=True)
        self.proj = nn.Linear(d_model, vocab_size)
        self.scale = math.sqrt(d_model)

    def _emb(self, x):
        pos = torch.arange(x.size(1), device=x.device)
        return self.embed(x) * self.scale + self.pos(pos)

    def forward(self, src, tgt_in):
        mask = self.core.generate_square_subsequent_mask(tgt_in.size(1)).to(src.device)
        h = self.core(self._emb(src), self._emb(tgt_in), tgt_mask=mask,
                      src_key_padding_mask=src.eq(PAD), tgt_key_padding_mask=tgt_in.eq(PAD))
        return self.proj(h)

    @torch.no_grad()
    def greedy(self, src, max_len=64):
        ys = torch.full((src.size(0), 1), BOS, dtype=torch.long, device=src.device)
        for _ in range(max_len):
            nxt = self.forward(src, ys)[:, -1].argmax(-1, keepdim=True)
            ys = torch.cat([ys, nxt], 1)
            if nxt.eq(EOS).all():
                break
        return ys[:, 1:]
