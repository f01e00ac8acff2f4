import torch
from torch import nn


class CRNN(nn.Module):
    def __init__(self, n_mels=40, n_classes=12, channels=32, hidden=128):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, channels, 3, padding=1), nn.BatchNorm2d(channels), nn.ReLU(),
            nn.MaxPool2d((1, 2)),
            nn.Conv2d(channels, channels, 3, padding=1), nn.BatchNorm2d(channels), nn.ReLU(),
            nn.MaxPool2d((1, 2)),
        )
        self.rnn = nn.GRU(channels * (n_mels // 4), hidden, batch_first=True, bidirectional=True)
        self.head = nn.Linear(2 * hidden, n_classes)

    def forward(self, x, lengths):
        x = self.conv(x.unsqueeze(1))              # B, C, T, F'
        b, c, t, f = x.shape
        x = x.permute(0, 2, 1, 3).reshape(b, t, c * f)
        out, _ = self.rnn(x)
        mask = (torch.arange(t, device=x.device)[None, :] < lengths[:, None].to(x.device)).unsqueeze(-1)
        pooled = (out * mask).sum(1) / mask.sum(1).clamp(min=1)
        return self.head(pooled)
