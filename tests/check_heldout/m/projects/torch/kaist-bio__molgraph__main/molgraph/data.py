import pickle

import torch
from torch.utils.data import Dataset


class MoleculeSet(Dataset):
    """A pickled list of dicts: atoms (N,) int, edges (2, E) int, bonds (E,) int, y float."""

    def __init__(self, path, target_mean=None, target_std=None):
        with open(path, "rb") as f:
            self.mols = pickle.load(f)
        ys = torch.tensor([m["y"] for m in self.mols], dtype=torch.float32)
        self.mean = ys.mean().item() if target_mean is None else target_mean
        self.std = ys.std().item() if target_std is None else target_std

    def __len__(self):
        return len(self.mols)

    def __getitem__(self, i):
        m = self.mols[i]
        return (torch.as_tensor(m["atoms"]), torch.as_tensor(m["edges"]), torch.as_tensor(m["bonds"]),
                (m["y"] - self.mean) / self.std)


def collate_graphs(batch):
    atoms, edges, bonds, graph_idx, ys = [], [], [], [], []
    offset = 0
    for g, (a, e, b, y) in enumerate(batch):
        atoms.append(a)
        edges.append(e + offset)
        bonds.append(b)
        graph_idx.append(torch.full((a.numel(),), g, dtype=torch.long))
        ys.append(y)
        offset += a.numel()
    return (torch.cat(atoms), torch.cat(edges, dim=1), torch.cat(bonds), torch.cat(graph_idx),
            torch.tensor(ys, dtype=torch.float32))
