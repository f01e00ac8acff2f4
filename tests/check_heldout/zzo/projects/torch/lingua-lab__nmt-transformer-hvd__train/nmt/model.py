import math

import torch
from torch import nn


class Seq2SeqTransformer(nn.Module):
    def __init__(self, src_vocab, tgt_vocab, d_model=256, nhead=4, layers=3, dropout=0.1):
        super().__init__()
        self.d_model = d_model
        self.src_emb = nn.Embedding(src_vocab, d_model, padding_idx=0)
        self.tgt_emb = nn.Embedding(tgt_vocab, d_model, padding_idx=0)
        self.pos = nn.Embedding(512, d_model)
        self.core = nn.Transformer(d_model, nhead, layers, layers, 4 * d_model, dropout, batch_first=True)
        self.proj = nn.Linear(d_model, tgt_vocab)

    def _embed(self, emb, x):
        pos = torch.arange(x.size(1), device=x.device).unsqueeze(0)
        return emb(x) * math.sqrt(self.d_model) + self.pos(pos)

    def forward(self, src, tgt_in):
        mask = self.core.generate_square_subsequent_mask(tgt_in.size(1)).to(src.device)
        h = self.core(self._embed(self.src_emb, src), self._embed(self.tgt_emb, tgt_in), tgt_mask=mask,
                      src_key_padding_mask=src.eq(0), tgt_key_padding_mask=tgt_in.eq(0))
        return self.proj(h)

    @torch.no_grad()
    def greedy(self, src, max_len=100, bos=1):
        ys = torch.full((src.size(0), 1), bos, dtype=torch.long, device=src.device)
        for _ in range(max_len):
            nxt = self(src, ys)[:, -1].argmax(-1, keepdim=True)
            ys = torch.cat([ys, nxt], dim=1)
        return ys[:, 1:]
