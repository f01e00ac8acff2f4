import torch
from torch import nn
import torch.nn.functional as F

from .layers import GINConv, global_add_pool


class GIN(nn.Module):
    def __init__(self, in_dim, hidden, num_layers, dropout):
        super().__init__()
        dims = [in_dim] + [hidden] * num_layers
        self.convs = nn.ModuleList(GINConv(a, b) for a, b in zip(dims[:-1], dims[1:]))
        self.dropout = dropout
        self.head = nn.Linear(hidden * num_layers, 1)

    def forward(self, x, edge_index, graph_id, num_graphs):
        pooled = []
        for conv in self.convs:
            x = F.relu(conv(x, edge_index))
            pooled.append(global_add_pool(x, graph_id, num_graphs))
        h = F.dropout(torch.cat(pooled, dim=1), self.dropout, self.training)
        return self.head(h).squeeze(-1)
