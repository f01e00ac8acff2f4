import random

import torch
import torch.nn as nn
import torch.nn.functional as F


class EncoderRNN(nn.Module):
    def __init__(self, vocab, hidden, n_layers=1, dropout=0.1):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden, padding_idx=0)
        self.gru = nn.GRU(hidden, hidden, n_layers, dropout=dropout if n_layers > 1 else 0, bidirectional=True)
        self.proj = nn.Linear(2 * hidden, hidden)

    def forward(self, src):
        out, h = self.gru(self.embedding(src))
        out = self.proj(out)
        h = torch.tanh(self.proj(torch.cat([h[-2], h[-1]], dim=-1))).unsqueeze(0)
        return out, h


class AttnDecoderRNN(nn.Module):
    def __init__(self, vocab, hidden, n_layers=1, dropout=0.1):
        super().__init__()
        self.embedding = nn.Embedding(vocab, hidden, padding_idx=0)
        self.attn = nn.Linear(2 * hidden, hidden)
        self.v = nn.Linear(hidden, 1, bias=False)
        self.gru = nn.GRU(2 * hidden, hidden, 1)
        self.out = nn.Linear(2 * hidden, vocab)
        self.drop = nn.Dropout(dropout)

    def forward(self, tok, h, enc_out):
        emb = self.drop(self.embedding(tok)).unsqueeze(0)             # 1,B,H
        T = enc_out.size(0)
        e = self.v(torch.tanh(self.attn(torch.cat([enc_out, h.expand(T, -1, -1)], dim=-1))))   # T,B,1
        a = F.softmax(e, dim=0)
        ctx = (a * enc_out).sum(0, keepdim=True)
        o, h = self.gru(torch.cat([emb, ctx], dim=-1), h)
        return self.out(torch.cat([o, ctx], dim=-1)).squeeze(0), h


class Seq2Seq(nn.Module):
    def __init__(self, encoder, decoder, bos, eos):
        super().__init__()
        self.encoder, self.decoder = encoder, decoder
        self.bos, self.eos = bos, eos

    def forward(self, src, tgt, teacher_forcing=1.0):
        enc_out, h = self.encoder(src)
        tok = torch.full((src.size(1),), self.bos, dtype=torch.long, device=src.device)
        logits = []
        for t in range(tgt.size(0)):
            out, h = self.decoder(tok, h, enc_out)
            logits.append(out)
            if random.random() < teacher_forcing:
                tok = tgt[t]
            else:
                tok = out.argmax(-1)
        return torch.stack(logits)

    @torch.no_grad()
    def greedy(self, src, max_len=30):
        enc_out, h = self.encoder(src)
        tok = torch.full((src.size(1),), self.bos, dtype=torch.long, device=src.device)
        out_ids = []
        for _ in range(max_len):
            out, h = self.decoder(tok, h, enc_out)
            tok = out.argmax(-1)
            out_ids.append(tok)
        return torch.stack(out_ids)
