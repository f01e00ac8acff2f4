import os

import numpy as np
import torch


def _synthetic(num_nodes, num_feats, num_classes, seed):
    rng = np.random.RandomState(seed)
    labels = rng.randint(0, num_classes, num_nodes)
    feats = (rng.rand(num_nodes, num_feats) < 0.02).astype(np.float32)
    src = rng.randint(0, num_nodes, num_nodes * 4)
    dst = rng.randint(0, num_nodes, num_nodes * 4)
    return feats, labels, np.stack([src, dst])


def normalized_adj(edge_index, n):
    # A_hat = D^-1/2 (A + I) D^-1/2 as a sparse COO tensor
    ei = torch.as_tensor(edge_index, dtype=torch.long)
    ei = torch.cat([ei, ei.flip(0), torch.arange(n).repeat(2, 1)], dim=1)
    ei = torch.unique(ei, dim=1)
    deg = torch.zeros(n).index_add_(0, ei[0], torch.ones(ei.size(1)))
    dinv = deg.pow(-0.5)
    w = dinv[ei[0]] * dinv[ei[1]]
    return torch.sparse_coo_tensor(ei, w, (n, n)).coalesce()


def load_graph(args):
    path = os.path.join(args.data_dir, "cora.npz")
    if os.path.exists(path):
        z = np.load(path)
        feats, labels, edge_index = z["x"], z["y"], z["edge_index"]
    else:
        feats, labels, edge_index = _synthetic(args.num_nodes, args.num_feats, args.num_classes, args.seed)
    n = feats.shape[0]
    # planetoid split: 20 per class train, next 500 val, last 1000 test
    train_mask = torch.zeros(n, dtype=torch.bool)
    for c in range(int(labels.max()) + 1):
        train_mask[np.where(labels == c)[0][:20]] = True
    rest = torch.where(~train_mask)[0]
    val_mask = torch.zeros(n, dtype=torch.bool)
    val_mask[rest[:500]] = True
    test_mask = torch.zeros(n, dtype=torch.bool)
    test_mask[rest[-1000:]] = True
    g = {
        "x": torch.from_numpy(feats),
        "y": torch.from_numpy(labels).long(),
        "adj": normalized_adj(edge_index, n),
        "train_mask": train_mask,
        "val_mask": val_mask,
        "test_mask": test_mask,
    }
    return g


def split_train_nodes(train_mask, rank, world):
    """every worker gets its own slice of the labelled nodes (the graph itself is replicated).
    Equal slices (remainder dropped) so that all workers run the same number of steps."""
    idx = torch.where(train_mask)[0]
    per = len(idx) // world
    return idx[rank * per:(rank + 1) * per]
