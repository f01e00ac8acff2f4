import os

import numpy as np
import torch
from torch.utils.data import Dataset


class GraphBatch:
    """A bag of graphs glued into one disconnected graph."""

    def __init__(self, x, edge_index, edge_attr, y, batch, num_graphs):
        self.x, self.edge_index, self.edge_attr = x, edge_index, edge_attr
        self.y, self.batch, self.num_graphs = y, batch, num_graphs

    def to(self, device):
        for k in ("x", "edge_index", "edge_attr", "y", "batch"):
            setattr(self, k, getattr(self, k).to(device, non_blocking=True))
        return self


def collate_graphs(samples):
    xs, eis, eas, ys, batch = [], [], [], [], []
    offset = 0
    for i, g in enumerate(samples):
        n = g["x"].shape[0]
        xs.append(g["x"])
        eis.append(g["edge_index"] + offset)
        eas.append(g["edge_attr"])
        ys.append(g["y"])
        batch.append(torch.full((n,), i, dtype=torch.long))
        offset += n
    return GraphBatch(torch.cat(xs), torch.cat(eis, 1), torch.cat(eas), torch.stack(ys),
                      torch.cat(batch), len(samples))


class MoleculeGraphs(Dataset):
    num_node_features = 11
    num_edge_features = 4

    def __init__(self, root=None, split="train", target=7, graphs=None):
        if graphs is None:
            raw = np.load(os.path.join(root, f"{split}.npz"), allow_pickle=True)
            graphs = [dict(x=x, edge_index=ei, edge_attr=ea, y=y[target])
                      for x, ei, ea, y in zip(raw["x"], raw["edge_index"], raw["edge_attr"], raw["y"])]
        self.graphs = graphs

    def __len__(self):
        return len(self.graphs)

    def __getitem__(self, idx):
        g = self.graphs[idx]
        return {
            "x": torch.as_tensor(g["x"], dtype=torch.float32),
            "edge_index": torch.as_tensor(g["edge_index"], dtype=torch.long),
            "edge_attr": torch.as_tensor(g["edge_attr"], dtype=torch.float32),
            "y": torch.as_tensor(g["y"], dtype=torch.float32).reshape(1),
        }


def make_synthetic(n, seed=0, val_frac=0.1):
    """Random molecule-like graphs, for smoke tests without the QM9 files."""
    rng = np.random.RandomState(seed)
    graphs = []
    for _ in range(n):
        atoms = rng.randint(3, 20)
        src = rng.randint(0, atoms, size=2 * atoms)
        dst = (src + rng.randint(1, atoms, size=src.shape)) % atoms
        graphs.append(dict(x=rng.rand(atoms, 11), edge_index=np.stack([src, dst]),
                           edge_attr=np.eye(4)[rng.randint(0, 4, size=src.shape)],
                           y=np.float32(rng.randn())))
    cut = int(n * (1 - val_frac))
    return MoleculeGraphs(graphs=graphs[:cut]), MoleculeGraphs(graphs=graphs[cut:])
