import torch
from torch import nn


class AttentionMIL(nn.Module):
    """Gated attention pooling (Ilse et al. 2018) over a bag of tile embeddings."""

    def __init__(self, feat_dim=768, hidden=256, n_classes=2, dropout=0.25):
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(feat_dim, hidden), nn.ReLU(), nn.Dropout(dropout))
        self.att_v = nn.Linear(hidden, 128)
        self.att_u = nn.Linear(hidden, 128)
        self.att_w = nn.Linear(128, 1)
        self.cls = nn.Linear(hidden, n_classes)

    def forward(self, bags):                       # (B, N, feat_dim)
        h = self.proj(bags)
        a = self.att_w(torch.tanh(self.att_v(h)) * torch.sigmoid(self.att_u(h)))
        a = torch.softmax(a, dim=1)
        return self.cls((a * h).sum(1))
