import torch
from torch import nn


def mean_aggregate(h_src, src_pos, dst_pos, n_dst):
    out = torch.zeros(n_dst, h_src.size(1), device=h_src.device)
    out.index_add_(0, dst_pos, h_src[src_pos])
    deg = torch.bincount(dst_pos, minlength=n_dst).clamp(min=1).unsqueeze(1)
    return out / deg


class SAGE(nn.Module):
    def __init__(self, in_dim, hidden, n_classes, n_layers=2):
        super().__init__()
        dims = [in_dim] + [hidden] * (n_layers - 1) + [n_classes]
        self.self_lins = nn.ModuleList(nn.Linear(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.nbr_lins = nn.ModuleList(nn.Linear(a, b, bias=False) for a, b in zip(dims[:-1], dims[1:]))

    def forward_blocks(self, x_input, blocks):
        h = x_input
        for i, (nodes, dst_nodes, src, dst) in enumerate(blocks):
            pos = torch.full((int(nodes.max()) + 1,), -1, dtype=torch.long)
            pos[nodes] = torch.arange(len(nodes))
            dpos = torch.full((int(dst_nodes.max()) + 1,), -1, dtype=torch.long)
            dpos[dst_nodes] = torch.arange(len(dst_nodes))
            agg = mean_aggregate(h, pos[src], dpos[dst], len(dst_nodes))
            h = self.self_lins[i](h[pos[dst_nodes]]) + self.nbr_lins[i](agg)
            if i < len(blocks) - 1:
                h = torch.relu(h)
        return h

    @torch.no_grad()
    def forward_full(self, graph):
        dst = torch.repeat_interleave(torch.arange(graph.num_nodes), graph.indptr[1:] - graph.indptr[:-1])
        h = graph.x
        for i in range(len(self.self_lins)):
            agg = mean_aggregate(h, graph.indices, dst, graph.num_nodes)
            h = self.self_lins[i](h) + self.nbr_lins[i](agg)
            if i < len(self.self_lins) - 1:
                h = torch.relu(h)
        return h
