import torch
from torch import nn


class QuantileLSTM(nn.Module):
    def __init__(self, hidden=64, layers=2, horizon=24, quantiles=(0.1, 0.5, 0.9), dropout=0.1):
        super().__init__()
        self.horizon = horizon
        self.quantiles = tuple(quantiles)
        self.rnn = nn.LSTM(1, hidden, num_layers=layers, batch_first=True, dropout=dropout)
        self.head = nn.Linear(hidden, horizon * len(self.quantiles))

    def forward(self, x):
        out, _ = self.rnn(x)
        q = self.head(out[:, -1])
        return q.view(x.size(0), self.horizon, len(self.quantiles))
