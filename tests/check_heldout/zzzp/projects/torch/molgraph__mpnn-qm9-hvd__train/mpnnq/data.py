import os
import random

import torch
import horovod.torch as hvd

NODE_FEATS = 11
EDGE_FEATS = 4


def random_molecule(rng):
    n = rng.randint(5, 29)
    x = torch.randn(n, NODE_FEATS)
    m = rng.randint(n, 3 * n)
    ei = torch.randint(0, n, (2, m))
    ea = torch.randn(m, EDGE_FEATS)
    y = torch.randn(12)
    return {"x": x, "edge_index": ei, "edge_attr": ea, "y": y}


def load_graph_list(cfg):
    if os.path.exists(cfg.data_path):
        return torch.load(cfg.data_path)
    rng = random.Random(cfg.seed)
    return [random_molecule(rng) for _ in range(cfg.n_graphs)]


def collate(graphs, target):
    """pack a list of small graphs into one big disconnected graph"""
    xs, eis, eas, batch, ys = [], [], [], [], []
    offset = 0
    for i, g in enumerate(graphs):
        n = g["x"].size(0)
        xs.append(g["x"])
        eis.append(g["edge_index"] + offset)
        eas.append(g["edge_attr"])
        batch.append(torch.full((n,), i, dtype=torch.long))
        ys.append(g["y"][target])
        offset += n
    return {
        "x": torch.cat(xs), "edge_index": torch.cat(eis, 1), "edge_attr": torch.cat(eas),
        "batch": torch.cat(batch), "y": torch.stack(ys), "num_graphs": len(graphs),
    }


class GraphLoader(object):
    def __init__(self, graphs, batch_size, target, shuffle, seed=0):
        self.graphs = graphs
        self.bs = batch_size
        self.target = target
        self.shuffle = shuffle
        self.seed = seed
        self.epoch = 0

    def set_epoch(self, e):
        self.epoch = e

    def __len__(self):
        return (len(self.graphs) + self.bs - 1) // self.bs

    def __iter__(self):
        order = list(range(len(self.graphs)))
        if self.shuffle:
            random.Random(self.seed + self.epoch).shuffle(order)
        for s in range(0, len(order), self.bs):
            yield collate([self.graphs[i] for i in order[s:s + self.bs]], self.target)


def shard_range(n, part, nparts):
    per = n // nparts
    return part * per, (part + 1) * per


def build_loaders(cfg):
    graphs = load_graph_list(cfg)
    n_val = int(len(graphs) * cfg.val_frac)
    train, val = graphs[n_val:], graphs[:n_val]
    # one contiguous block of molecules per GPU on this machine
    a, b = shard_range(len(train), hvd.local_rank(), hvd.local_size())
    va, vb = shard_range(len(val), hvd.local_rank(), hvd.local_size())
    train_loader = GraphLoader(train[a:b], cfg.batch_size, cfg.target, shuffle=True, seed=cfg.seed)
    val_loader = GraphLoader(val[va:vb], cfg.batch_size, cfg.target, shuffle=False)
    return train_loader, val_loader
