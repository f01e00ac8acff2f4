import numpy as np


class Graph:
    def __init__(self, features, indptr, indices, labels, train_idx, val_idx):
        self.features, self.indptr, self.indices = features, indptr, indices
        self.labels, self.train_idx, self.val_idx = labels, train_idx, val_idx
        self.num_classes = int(labels.max()) + 1

    @classmethod
    def load(cls, path):
        z = np.load(path)
        return cls(z["features"].astype(np.float32), z["indptr"], z["indices"],
                   z["labels"].astype(np.int64), z["train_idx"], z["val_idx"])

    def neighbors(self, v):
        return self.indices[self.indptr[v]:self.indptr[v + 1]]


def split_train_nodes(train_idx, rank, world, seed=0):
    perm = np.random.RandomState(seed).permutation(train_idx)
    per_worker = len(perm) // world          # equal step counts on every worker
    return perm[rank * per_worker:(rank + 1) * per_worker].copy()


class NeighborSampler:
    """Fixed-fanout uniform sampling; returns node features per hop (outermost last)."""

    def __init__(self, graph, fanouts):
        self.g, self.fanouts = graph, fanouts

    def sample(self, seeds, rng=np.random):
        layers = [np.asarray(seeds)]
        for k in self.fanouts:
            frontier = layers[-1]
            nxt = np.empty((len(frontier), k), dtype=np.int64)
            for j, v in enumerate(frontier):
                nb = self.g.neighbors(v)
                nxt[j] = rng.choice(nb, k) if len(nb) else v
            layers.append(nxt.reshape(-1))
        feats = [self.g.features[l] for l in layers]
        return feats, self.fanouts, self.g.labels[layers[0]]
