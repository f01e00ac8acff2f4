import torch.nn as nn
import torch.nn.functional as F


class ImageTower(nn.Module):
    def __init__(self, in_dim, out_dim=192, dropout=0.1):
        super().__init__()
        self.mlp = nn.Sequential(nn.LayerNorm(in_dim), nn.Linear(in_dim, 384), nn.GELU(),
                                 nn.Dropout(dropout), nn.Linear(384, out_dim))

    def forward(self, x):
        return F.normalize(self.mlp(x), dim=-1)
