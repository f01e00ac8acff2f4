import torch
import torch.nn as nn
import torch.nn.functional as F


def scatter_softmax(score, index, n):
    smax = torch.full((n, score.size(1)), -1e9, device=score.device)
    smax = smax.scatter_reduce(0, index.unsqueeze(1).expand_as(score), score, reduce="amax", include_self=True)
    e = (score - smax[index]).exp()
    denom = torch.zeros(n, score.size(1), device=score.device).index_add_(0, index, e)
    return e / (denom[index] + 1e-16)


class GATLayer(nn.Module):
    def __init__(self, in_dim, out_dim, heads, concat=True, residual=True):
        super().__init__()
        self.h, self.d, self.concat = heads, out_dim, concat
        self.fc = nn.Linear(in_dim, heads * out_dim, bias=False)
        self.a_src = nn.Parameter(torch.randn(1, heads, out_dim) * 0.1)
        self.a_dst = nn.Parameter(torch.randn(1, heads, out_dim) * 0.1)
        self.res = nn.Linear(in_dim, heads * out_dim if concat else out_dim, bias=False) if residual else None

    def forward(self, x, edge_index):
        n = x.size(0)
        src, dst = edge_index
        z = self.fc(x).view(n, self.h, self.d)
        score = F.leaky_relu((z * self.a_src).sum(-1)[src] + (z * self.a_dst).sum(-1)[dst], 0.2)
        alpha = scatter_softmax(score, dst, n)
        out = torch.zeros_like(z).index_add_(0, dst, alpha.unsqueeze(-1) * z[src])
        out = out.reshape(n, -1) if self.concat else out.mean(1)
        if self.res is not None:
            out = out + self.res(x)
        return out


class GAT(nn.Module):
    def __init__(self, in_dim, hidden, n_out, heads):
        super().__init__()
        self.l1 = GATLayer(in_dim, hidden, heads[0])
        self.l2 = GATLayer(hidden * heads[0], hidden, heads[1])
        self.l3 = GATLayer(hidden * heads[1], n_out, heads[2], concat=False)

    def forward(self, x, ei):
        x = F.elu(self.l1(x, ei))
        x = F.elu(self.l2(x, ei))
        return self.l3(x, ei)
