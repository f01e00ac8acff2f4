import torch
import torch.nn as nn


class ConvBiLSTM(nn.Module):
    def __init__(self, filters=128, hidden=64):
        super().__init__()
        self.backbone = nn.ModuleDict({
            "conv": nn.Sequential(nn.Conv1d(4, filters, 15, padding=7), nn.ReLU(), nn.MaxPool1d(4),
                                  nn.Dropout(0.2)),
            "lstm": nn.LSTM(filters, hidden, batch_first=True, bidirectional=True),
        })
        self.head = nn.Sequential(nn.Linear(2 * hidden, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, x):                      # x: B x L x 4
        h = self.backbone["conv"](x.transpose(1, 2)).transpose(1, 2)
        h, _ = self.backbone["lstm"](h)
        return self.head(h.mean(1)).squeeze(-1)


def pearson(a, b):
    a, b = a - a.mean(), b - b.mean()
    return float((a * b).sum() / (torch.sqrt((a * a).sum() * (b * b).sum()) + 1e-12))
