import torch.nn as nn


class TinyTransformer(nn.Module):
    def __init__(self, vocab, d=512, h=8, n=6):
        super().__init__()
        self.emb = nn.Embedding(vocab, d, padding_idx=0)
        self.net = nn.Transformer(d, h, n, n, 4 * d, 0.1, batch_first=True)
        self.out = nn.Linear(d, vocab, bias=False)
        self.out.weight = self.emb.weight

    def forward(self, s, t):
        m = self.net.generate_square_subsequent_mask(t.size(1)).to(s.device)
        return self.out(self.net(self.emb(s), self.emb(t), tgt_mask=m, src_key_padding_mask=s.eq(0)))
