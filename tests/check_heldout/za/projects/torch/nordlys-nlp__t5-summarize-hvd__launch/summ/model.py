import torch
from torch import nn


class Seq2Seq(nn.Module):
    def __init__(self, vocab_size, d_model=384, layers=4, max_len=512):
        super().__init__()
        self.emb = nn.Embedding(vocab_size, d_model, padding_idx=0)
        self.pos = nn.Embedding(max_len, d_model)
        self.core = nn.Transformer(d_model, nhead=6, num_encoder_layers=layers, num_decoder_layers=layers,
                                   dim_feedforward=4 * d_model, batch_first=True)
        self.out = nn.Linear(d_model, vocab_size)

    def embed(self, x):
        return self.emb(x) + self.pos(torch.arange(x.size(1), device=x.device))

    def forward(self, src, dec_in):
        causal = self.core.generate_square_subsequent_mask(dec_in.size(1), device=src.device)
        h = self.core(self.embed(src), self.embed(dec_in), tgt_mask=causal,
                      src_key_padding_mask=src.eq(0), tgt_key_padding_mask=dec_in.eq(0),
                      memory_key_padding_mask=src.eq(0))
        return self.out(h)
