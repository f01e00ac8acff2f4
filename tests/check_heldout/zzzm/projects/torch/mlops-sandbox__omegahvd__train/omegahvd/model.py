import torch.nn as nn

_MODELS = {}


def register(name):
    def deco(fn):
        _MODELS[name] = fn
        return fn
    return deco


@register("mlp")
def mlp(mcfg, n_in=32, n_out=4):
    layers, prev = [], n_in
    for h in mcfg.hidden:
        layers += [nn.Linear(prev, h), nn.ReLU(), nn.Dropout(mcfg.dropout)]
        prev = h
    layers.append(nn.Linear(prev, n_out))
    return nn.Sequential(*layers)


@register("linear")
def linear(mcfg, n_in=32, n_out=4):
    return nn.Linear(n_in, n_out)


def build_model(mcfg):
    if mcfg.name not in _MODELS:
        raise KeyError("unknown model %s, have %s" % (mcfg.name, sorted(_MODELS)))
    return _MODELS[mcfg.name](mcfg)
