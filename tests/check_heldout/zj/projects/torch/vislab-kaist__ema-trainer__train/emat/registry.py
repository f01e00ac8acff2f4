import torch


class Registry:
    def __init__(self, name):
        self.name = name
        self._items = {}

    def register(self, key=None):
        def deco(obj):
            self._items[key or obj.__name__] = obj
            return obj
        return deco

    def get(self, key):
        if key not in self._items:
            raise KeyError(f"{key!r} is not registered in {self.name}: {sorted(self._items)}")
        return self._items[key]

    def build(self, key, **kwargs):
        return self.get(key)(**kwargs)


MODELS = Registry("models")
OPTIMIZERS = Registry("optimizers")


@OPTIMIZERS.register("sgd")
def _sgd(params, lr, momentum, weight_decay):
    return torch.optim.SGD(params, lr=lr, momentum=momentum, weight_decay=weight_decay, nesterov=True)


@OPTIMIZERS.register("adamw")
def _adamw(params, lr, momentum, weight_decay):
    return torch.optim.AdamW(params, lr=lr, betas=(momentum, 0.999), weight_decay=weight_decay)


def build_optimizer(ocfg, params, lr_scale=1.0):
    return OPTIMIZERS.build(ocfg.name, params=params, lr=ocfg.lr * lr_scale,
                            momentum=ocfg.momentum, weight_decay=ocfg.weight_decay)
