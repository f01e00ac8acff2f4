import torch
import torch.nn as nn


class DisruptionLSTM(nn.Module):
    def __init__(self, n_signals, hidden=128, layers=2):
        super().__init__()
        self.lstm = nn.LSTM(n_signals, hidden, num_layers=layers, batch_first=True, dropout=0.1)
        self.cls = nn.Linear(hidden, 1)
        self.ttd = nn.Linear(hidden, 1)

    def forward(self, x):
        h, _ = self.lstm(x)
        last = h[:, -1]
        return self.cls(last).squeeze(-1), self.ttd(last).squeeze(-1)


class UncertaintyWeights(nn.Module):
    """Homoscedastic-uncertainty task weighting: sum_i exp(-s_i) * L_i + s_i."""

    def __init__(self, n_tasks):
        super().__init__()
        self.log_vars = nn.Parameter(torch.zeros(n_tasks))

    def forward(self, losses):
        return sum(torch.exp(-s) * l + s for s, l in zip(self.log_vars, losses))
