import numpy as np
import torch
from torch.utils.data import Dataset


class CrystalGraphs(Dataset):
    """Graphs packed in one .npz: node features, edge lists and per-graph offsets (CSR-like)."""

    def __init__(self, npz_path, indices):
        d = np.load(npz_path)
        self.node_feat, self.edge_index = d["node_feat"], d["edge_index"]
        self.edge_dist, self.node_ptr, self.edge_ptr = d["edge_dist"], d["node_ptr"], d["edge_ptr"]
        self.target = d["e_form"].astype(np.float32)
        self.indices = np.asarray(indices)

    def __len__(self):
        return len(self.indices)

    def __getitem__(self, i):
        g = int(self.indices[i])
        n0, n1 = self.node_ptr[g], self.node_ptr[g + 1]
        e0, e1 = self.edge_ptr[g], self.edge_ptr[g + 1]
        return (torch.from_numpy(self.node_feat[n0:n1]).float(),
                torch.from_numpy(self.edge_index[:, e0:e1]).long(),
                torch.from_numpy(self.edge_dist[e0:e1]).float(),
                torch.tensor(self.target[g]))


def split_indices(n_graphs, val_frac, rank, size):
    idx = np.random.permutation(n_graphs)
    n_val = int(n_graphs * val_frac)
    val, train = idx[:n_val], idx[n_val:]
    train = train[: len(train) // size * size]
    val = val[: len(val) // size * size]
    return train[rank::size], val[rank::size]


def num_graphs(npz_path):
    return len(np.load(npz_path)["e_form"])
