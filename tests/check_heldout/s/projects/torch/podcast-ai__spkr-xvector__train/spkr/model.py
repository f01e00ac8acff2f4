import torch
from torch import nn


class TDNN(nn.Module):
    def __init__(self, feat_dim, embed_dim, num_speakers):
        super().__init__()
        c = 256
        self.frames = nn.Sequential(
            nn.Conv1d(feat_dim, c, 5, padding=2), nn.ReLU(), nn.BatchNorm1d(c),
            nn.Conv1d(c, c, 3, dilation=2, padding=2), nn.ReLU(), nn.BatchNorm1d(c),
            nn.Conv1d(c, c, 3, dilation=3, padding=3), nn.ReLU(), nn.BatchNorm1d(c),
            nn.Conv1d(c, 3 * c, 1), nn.ReLU(), nn.BatchNorm1d(3 * c))
        self.embed = nn.Linear(6 * c, embed_dim)
        self.classifier = nn.Linear(embed_dim, num_speakers)

    def embedding(self, x):
        h = self.frames(x.transpose(1, 2))
        stats = torch.cat([h.mean(-1), h.std(-1)], dim=1)
        return self.embed(stats)

    def forward(self, x):
        return self.classifier(torch.relu(self.embedding(x)))
