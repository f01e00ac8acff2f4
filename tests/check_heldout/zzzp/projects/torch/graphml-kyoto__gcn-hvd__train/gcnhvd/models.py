import torch
import torch.nn as nn
import torch.nn.functional as F


class GraphConv(nn.Module):
    def __init__(self, in_dim, out_dim, bias=True):
        super().__init__()
        self.lin = nn.Linear(in_dim, out_dim, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_dim)) if bias else None

    def forward(self, x, adj):
        h = torch.sparse.mm(adj, self.lin(x))
        if self.bias is not None:
            h = h + self.bias
        return h


class GCN(nn.Module):
    def __init__(self, in_dim, hidden, n_cls, dropout=0.5):
        super().__init__()
        self.conv1 = GraphConv(in_dim, hidden)
        self.conv2 = GraphConv(hidden, n_cls)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.dropout(x, self.dropout, self.training)
        x = F.relu(self.conv1(x, adj))
        x = F.dropout(x, self.dropout, self.training)
        return self.conv2(x, adj)
