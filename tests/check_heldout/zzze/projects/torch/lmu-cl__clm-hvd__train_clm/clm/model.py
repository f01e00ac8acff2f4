import torch.nn as nn


class LSTMLM(nn.Module):
    def __init__(self, vocab, emb, hidden, layers=2, dropout=0.1):
        super().__init__()
        self.emb = nn.Embedding(vocab, emb)
        self.lstm = nn.LSTM(emb, hidden, layers, batch_first=True, dropout=dropout)
        self.proj = nn.Linear(hidden, emb)
        self.dec = nn.Linear(emb, vocab)
        self.dec.weight = self.emb.weight

    def forward(self, x):
        h, _ = self.lstm(self.emb(x))
        return self.dec(self.proj(h))
