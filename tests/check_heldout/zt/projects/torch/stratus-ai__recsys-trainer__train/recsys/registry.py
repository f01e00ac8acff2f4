import torch
import torch.nn as nn


class Registry:
    def __init__(self, kind):
        self.kind = kind
        self._items = {}

    def register(self, name):
        def deco(fn):
            self._items[name] = fn
            return fn
        return deco

    def build(self, name, *args, **kwargs):
        if name not in self._items:
            raise KeyError(f"unknown {self.kind} '{name}', have {sorted(self._items)}")
        return self._items[name](*args, **kwargs)


MODELS = Registry("model")
OPTIMIZERS = Registry("optimizer")


class TwoTower(nn.Module):
    def __init__(self, num_items, dim):
        super().__init__()
        self.user = nn.Sequential(nn.Linear(32, dim), nn.ReLU(), nn.Linear(dim, dim))
        self.items = nn.Embedding(num_items, dim)

    def forward(self, feats, item_ids):
        return (self.user(feats) * self.items(item_ids)).sum(-1)


@MODELS.register("two_tower")
def two_tower(cfg):
    return TwoTower(cfg.data.num_items, cfg.model.dim)


@OPTIMIZERS.register("adam")
def adam(params, lr, weight_decay=0.0):
    return torch.optim.Adam(params, lr=lr, weight_decay=weight_decay)


@OPTIMIZERS.register("sgd")
def sgd(params, lr, weight_decay=0.0):
    return torch.optim.SGD(params, lr=lr, momentum=0.9, weight_decay=weight_decay)
