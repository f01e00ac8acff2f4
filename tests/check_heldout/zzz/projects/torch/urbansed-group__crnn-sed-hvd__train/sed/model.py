import torch
import torch.nn as nn

from .frontend import LogMelSpec


class CRNN(nn.Module):
    """Frame-level sigmoid outputs plus an attention-pooled clip-level output."""

    def __init__(self, n_classes=10, n_mels=40, hidden=64):
        super().__init__()
        self.frontend = LogMelSpec(n_mels=n_mels)
        self.cnn = nn.Sequential(
            nn.Conv2d(1, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d((1, 5)),
            nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d((1, 2)),
            nn.Conv2d(64, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d((1, 2)))
        self.rnn = nn.GRU(64 * (n_mels // 20), hidden, batch_first=True, bidirectional=True)
        self.frame_head = nn.Linear(2 * hidden, n_classes)
        self.att_head = nn.Linear(2 * hidden, n_classes)

    def forward(self, wav):
        x = self.frontend(wav).unsqueeze(1)               # B,1,T,M
        x = self.cnn(x)                                   # B,C,T,M'
        x = x.permute(0, 2, 1, 3).flatten(2)              # B,T,C*M'
        h, _ = self.rnn(x)
        frame = torch.sigmoid(self.frame_head(h))         # B,T,K
        att = torch.softmax(self.att_head(h), dim=1)
        clip = (frame * att).sum(1).clamp(1e-6, 1 - 1e-6)
        return frame, clip
