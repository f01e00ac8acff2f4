import torch.nn as nn

_REGISTRY = {}


def register(name):
    def deco(fn):
        _REGISTRY[name] = fn
        return fn
    return deco


@register("mlp")
def mlp(n_features, n_classes, hidden=128):
    return nn.Sequential(
        nn.Linear(n_features, hidden), nn.ReLU(),
        nn.Linear(hidden, hidden), nn.ReLU(),
        nn.Linear(hidden, n_classes),
    )


@register("wide")
def wide(n_features, n_classes):
    return nn.Sequential(nn.Linear(n_features, 512), nn.GELU(), nn.Dropout(0.1),
                         nn.Linear(512, n_classes))


def build(name, **kwargs):
    if name not in _REGISTRY:
        raise KeyError(f"unknown model {name!r}, choose from {sorted(_REGISTRY)}")
    return _REGISTRY[name](**kwargs)
