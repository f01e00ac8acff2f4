import torch
from torch import nn


class DMPNN(nn.Module):
    def __init__(self, atom_dim, bond_dim, hidden=300, depth=3, dropout=0.0):
        super().__init__()
        self.depth = depth
        self.W_i = nn.Linear(atom_dim + bond_dim, hidden, bias=False)
        self.W_h = nn.Linear(hidden, hidden, bias=False)
        self.W_o = nn.Linear(atom_dim + hidden, hidden)
        self.ffn = nn.Sequential(nn.Dropout(dropout), nn.Linear(hidden, hidden), nn.ReLU(), nn.Linear(hidden, 1))

    def forward(self, b):
        h0 = torch.relu(self.W_i(torch.cat([b["atom_x"][b["src"]], b["bond_x"]], dim=1)))
        h = h0
        for _ in range(self.depth - 1):
            incoming = torch.zeros(b["atom_x"].size(0), h.size(1), device=h.device).index_add_(0, b["dst"], h)
            m = incoming[b["src"]] - h[b["rev"]]        # messages into src, minus the reverse edge
            h = torch.relu(h0 + self.W_h(m))
        atom_m = torch.zeros(b["atom_x"].size(0), h.size(1), device=h.device).index_add_(0, b["dst"], h)
        atom_h = torch.relu(self.W_o(torch.cat([b["atom_x"], atom_m], dim=1)))
        mol_h = torch.zeros(b["num_mols"], h.size(1), device=h.device).index_add_(0, b["mol"], atom_h)
        return self.ffn(mol_h)
