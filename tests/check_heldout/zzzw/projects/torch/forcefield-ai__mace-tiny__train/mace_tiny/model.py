import math
import torch
from torch import nn


class RadialEmbedding(nn.Module):
    def __init__(self, r_max, num_bessel=8):
        super().__init__()
        self.r_max = r_max
        self.register_buffer("w", torch.arange(1, num_bessel + 1) * math.pi / r_max)

    def forward(self, r):
        u = r / self.r_max
        fcut = (1 - u ** 2) ** 2
        return torch.sin(self.w * r[:, None]) / r[:, None] * fcut[:, None]


class BodyOrderBlock(nn.Module):
    """A_i = sum_j R(r_ij) h_j ;  B_i = prod over correlation order (scalar channels only)"""

    def __init__(self, channels, correlation, num_bessel=8):
        super().__init__()
        self.radial = nn.Sequential(nn.Linear(num_bessel, 64), nn.SiLU(), nn.Linear(64, channels))
        self.weights = nn.Parameter(torch.randn(correlation, channels) / channels)
        self.correlation = correlation
        self.linear = nn.Linear(channels, channels)

    def forward(self, h, edge_feats, sender, receiver):
        A = torch.zeros_like(h).index_add_(0, receiver, self.radial(edge_feats) * h[sender])
        B, An = 0.0, torch.ones_like(A)
        for nu in range(self.correlation):
            An = An * A
            B = B + self.weights[nu] * An
        return self.linear(B) + h


class MACETiny(nn.Module):
    def __init__(self, r_max=5.0, num_channels=32, correlation=3, num_interactions=2):
        super().__init__()
        self.r_max = r_max
        self.node_embedding = nn.Embedding(119, num_channels)
        self.radial_embedding = RadialEmbedding(r_max)
        self.blocks = nn.ModuleList([BodyOrderBlock(num_channels, correlation) for _ in range(num_interactions)])
        self.readouts = nn.ModuleList([nn.Linear(num_channels, 1) for _ in range(num_interactions)])

    def forward(self, data, training=False):
        pos = data["positions"].requires_grad_(True)
        batch = data["batch"]
        with torch.no_grad():
            adj = (batch[:, None] == batch[None, :]) & (torch.cdist(pos, pos) < self.r_max)
            adj.fill_diagonal_(False)
        sender, receiver = adj.nonzero(as_tuple=True)
        r = (pos[receiver] - pos[sender]).norm(dim=-1)
        ef = self.radial_embedding(r)
        h = self.node_embedding(data["node_attrs"])
        node_e = 0.0
        for block, readout in zip(self.blocks, self.readouts):
            h = block(h, ef, sender, receiver)
            node_e = node_e + readout(h).squeeze(-1)
        energy = torch.zeros(len(data["num_atoms"]), device=pos.device).index_add_(0, batch, node_e)
        forces = -torch.autograd.grad([energy.sum()], [pos], create_graph=training)[0]
        return {"energy": energy, "forces": forces}
