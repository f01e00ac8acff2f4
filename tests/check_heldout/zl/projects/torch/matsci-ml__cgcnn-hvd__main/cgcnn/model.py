import torch
import torch.nn as nn


class ConvLayer(nn.Module):
    def __init__(self, atom_len, nbr_len):
        super().__init__()
        self.fc = nn.Linear(2 * atom_len + nbr_len, 2 * atom_len)
        self.bn1, self.bn2 = nn.BatchNorm1d(2 * atom_len), nn.BatchNorm1d(atom_len)
        self.softplus = nn.Softplus()

    def forward(self, atom, nbr_fea, nbr_idx):
        B, A, M = nbr_idx.shape
        nbr_atom = torch.gather(atom.unsqueeze(1).expand(B, A, A, atom.shape[-1]), 2,
                                nbr_idx.unsqueeze(-1).expand(B, A, M, atom.shape[-1]))
        z = torch.cat([atom.unsqueeze(2).expand(B, A, M, atom.shape[-1]), nbr_atom, nbr_fea], dim=-1)
        g = self.bn1(self.fc(z).view(-1, z.shape[-1] - nbr_fea.shape[-1])).view(B, A, M, -1)
        filt, core = g.chunk(2, dim=-1)
        s = (torch.sigmoid(filt) * self.softplus(core)).sum(2)
        return self.softplus(atom + self.bn2(s.view(B * A, -1)).view(B, A, -1))


class CrystalGraphConvNet(nn.Module):
    def __init__(self, orig_atom_len, nbr_len, atom_len=64, n_conv=3, h_len=128):
        super().__init__()
        self.embedding = nn.Linear(orig_atom_len, atom_len)
        self.convs = nn.ModuleList([ConvLayer(atom_len, nbr_len) for _ in range(n_conv)])
        self.fc = nn.Sequential(nn.Linear(atom_len, h_len), nn.Softplus(), nn.Linear(h_len, 1))

    def forward(self, atom_fea, nbr_fea, nbr_idx, mask):
        atom = self.embedding(atom_fea)
        for conv in self.convs:
            atom = conv(atom, nbr_fea, nbr_idx) * mask.unsqueeze(-1)
        crys = atom.sum(1) / mask.sum(1, keepdim=True).clamp(min=1)
        return self.fc(crys)
