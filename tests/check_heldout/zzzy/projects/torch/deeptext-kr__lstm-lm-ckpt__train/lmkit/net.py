import torch
import torch.nn as nn


class LSTMLM(nn.Module):
    def __init__(self, V, emb, hid, layers, dropout, tie=False):
        super().__init__()
        self.emb = nn.Embedding(V, emb)
        self.lstm = nn.LSTM(emb, hid, layers, dropout=dropout)
        self.proj = nn.Linear(hid, emb) if tie else nn.Identity()
        self.out = nn.Linear(emb if tie else hid, V)
        if tie:
            self.out.weight = self.emb.weight
        self.drop = nn.Dropout(dropout)
        self.layers, self.hid = layers, hid

    def zero_state(self, bsz, device):
        z = torch.zeros(self.layers, bsz, self.hid, device=device)
        return (z, z.clone())

    def forward(self, x, state):
        h, state = self.lstm(self.drop(self.emb(x)), state)
        return self.out(self.proj(self.drop(h))), state
