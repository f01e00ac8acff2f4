import torch
import torch.nn as nn


class Seq2SeqSummarizer(nn.Module):
    def __init__(self, vocab_size, dim=256, layers=2):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, dim, padding_idx=0)
        self.enc = nn.LSTM(dim, dim, layers, batch_first=True)
        self.dec = nn.LSTM(dim, dim, layers, batch_first=True)
        self.out = nn.Linear(dim, vocab_size)

    def forward(self, src, tgt_in):
        _, state = self.enc(self.emb(src))
        h, _ = self.dec(self.emb(tgt_in), state)
        return self.out(h)

    @torch.no_grad()
    def generate(self, src, max_len=128, bos=1, eos=2):
        _, state = self.enc(self.emb(src))
        tok = torch.full((src.size(0), 1), bos, dtype=torch.long, device=src.device)
        out = []
        for _ in range(max_len):
            h, state = self.dec(self.emb(tok), state)
            tok = self.out(h[:, -1]).argmax(-1, keepdim=True)
            out.append(tok)
            if tok.eq(eos).all():
                break
        return torch.cat(out, 1)
