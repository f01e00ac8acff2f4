"""Molecular graphs stored as one .npz: concatenated node features and edges plus offsets."""
import numpy as np
import torch
import horovod.torch as hvd
from torch.utils.data import DataLoader, Dataset
from torch.utils.data.distributed import DistributedSampler


class MolGraphs(Dataset):
    def __init__(self, path, split):
        z = np.load(path)
        self.x, self.edges, self.y = z["x"], z["edges"], z["y"].astype(np.float32)
        self.node_ptr, self.edge_ptr = z["node_ptr"], z["edge_ptr"]
        self.index = np.flatnonzero(z["split"] == split)

    def __len__(self):
        return len(self.index)

    def __getitem__(self, i):
        g = self.index[i]
        n0, n1 = self.node_ptr[g], self.node_ptr[g + 1]
        e0, e1 = self.edge_ptr[g], self.edge_ptr[g + 1]
        return self.x[n0:n1], self.edges[:, e0:e1] - n0, self.y[g]


def collate(graphs):
    xs, eis, gids, ys, offset = [], [], [], [], 0
    for gi, (x, ei, y) in enumerate(graphs):
        xs.append(torch.from_numpy(x).float())
        eis.append(torch.from_numpy(ei).long() + offset)
        gids.append(torch.full((len(x),), gi, dtype=torch.long))
        ys.append(y)
        offset += len(x)
    return {"x": torch.cat(xs), "edge_index": torch.cat(eis, dim=1), "graph_id": torch.cat(gids),
            "num_graphs": torch.tensor(len(graphs)), "y": torch.tensor(ys)}


def build_loaders(path, batch_size):
    train, val = MolGraphs(path, 0), MolGraphs(path, 1)
    # one process per GPU on each node
    train_sampler = DistributedSampler(train, num_replicas=hvd.size(), rank=hvd.local_rank())
    val_sampler = DistributedSampler(val, num_replicas=hvd.size(), rank=hvd.rank(), shuffle=False)
    train_loader = DataLoader(train, batch_size=batch_size, sampler=train_sampler,
                              collate_fn=collate, drop_last=True)
    val_loader = DataLoader(val, batch_size=batch_size, sampler=val_sampler, collate_fn=collate)
    return train_loader, val_loader, train_sampler, train.x.shape[1]
