import torch.nn as nn


class SentimentEncoder(nn.Module):
    def __init__(self, vocab_size, d=192, heads=6, layers=3, max_len=512):
        super().__init__()
        self.embed = nn.Embedding(vocab_size, d, padding_idx=1)
        self.pos = nn.Embedding(max_len, d)
        self.enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, heads, 4 * d, batch_first=True), layers)
        self.head = nn.Sequential(nn.Linear(d, d), nn.Tanh(), nn.Linear(d, 2))

    def forward(self, ids):
        pos = self.pos.weight[: ids.size(1)]
        h = self.enc(self.embed(ids) + pos, src_key_padding_mask=ids.eq(1))
        return self.head(h[:, 0])
