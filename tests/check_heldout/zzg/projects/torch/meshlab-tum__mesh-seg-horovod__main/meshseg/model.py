import torch
from torch import nn


class FaceConv(nn.Module):
    """Face-based convolution: each face mixes its own feature with its three edge neighbours."""

    def __init__(self, d_in, d_out):
        super().__init__()
        self.lin = nn.Linear(4 * d_in, d_out)
        self.norm = nn.LayerNorm(d_out)

    def forward(self, h, adj):
        nb = h[adj]                                   # (F, 3, d)
        sym = torch.cat([nb.sum(1), (nb - h.unsqueeze(1)).abs().sum(1), nb.max(1).values], dim=-1)
        return torch.relu(self.norm(self.lin(torch.cat([h, sym], dim=-1))))


class MeshSegNet(nn.Module):
    def __init__(self, in_dim=7, hidden=128, depth=4, num_parts=8):
        super().__init__()
        dims = [in_dim] + [hidden] * depth
        self.convs = nn.ModuleList(FaceConv(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.cls = nn.Linear(hidden * depth, num_parts)

    def forward(self, feats, adj):
        h, skips = feats, []
        for conv in self.convs:
            h = conv(h, adj)
            skips.append(h)
        return self.cls(torch.cat(skips, dim=-1))
