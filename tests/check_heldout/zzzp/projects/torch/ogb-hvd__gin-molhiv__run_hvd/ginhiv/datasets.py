import random

import torch

ATOM_FEATS = 9
BOND_FEATS = 3


def fake_molhiv(n, seed=0):
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        na = rng.randint(4, 40)
        ne = rng.randint(na - 1, 2 * na)
        g = {
            "x": torch.randint(0, 20, (na, ATOM_FEATS)),
            "edge_index": torch.randint(0, na, (2, ne)),
            "edge_attr": torch.randint(0, 4, (ne, BOND_FEATS)),
            "y": torch.tensor([float(rng.random() < 0.035)]),
        }
        out.append(g)
    return out


def scaffold_split_indices(n):
    # the real split comes from ogb; the fake one keeps the 80/10/10 proportions
    a, b = int(0.8 * n), int(0.9 * n)
    return list(range(a)), list(range(a, b)), list(range(b, n))


def pad_batch(graphs):
    """batch by padding every graph to the largest one (dense adjacency)"""
    nmax = max(g["x"].size(0) for g in graphs)
    B = len(graphs)
    x = torch.zeros(B, nmax, ATOM_FEATS, dtype=torch.long)
    adj = torch.zeros(B, nmax, nmax)
    mask = torch.zeros(B, nmax)
    y = torch.stack([g["y"] for g in graphs])
    for i, g in enumerate(graphs):
        n = g["x"].size(0)
        x[i, :n] = g["x"]
        adj[i, g["edge_index"][0], g["edge_index"][1]] = 1.0
        adj[i, g["edge_index"][1], g["edge_index"][0]] = 1.0
        mask[i, :n] = 1.0
    return x, adj, mask, y


def iterate(graphs, idx, batch_size, shuffle, seed=0):
    idx = list(idx)
    if shuffle:
        random.Random(seed).shuffle(idx)
    for s in range(0, len(idx), batch_size):
        yield pad_batch([graphs[i] for i in idx[s:s + batch_size]])
