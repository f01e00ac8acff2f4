import torch
import torch.nn as nn


class Registry:
    def __init__(self, name):
        self.name = name
        self._obj = {}

    def register(self, key=None):
        def deco(fn):
            self._obj[key or fn.__name__] = fn
            return fn
        return deco

    def build(self, key, *args, **kwargs):
        if key not in self._obj:
            raise KeyError('{} has no entry {!r} (have: {})'.format(self.name, key, sorted(self._obj)))
        return self._obj[key](*args, **kwargs)


MODELS = Registry('models')
OPTIMIZERS = Registry('optimizers')


@OPTIMIZERS.register('sgd')
def _sgd(params, lr, weight_decay=0.0):
    return torch.optim.SGD(params, lr=lr, momentum=0.9, weight_decay=weight_decay, nesterov=True)


@OPTIMIZERS.register('adamw')
def _adamw(params, lr, weight_decay=0.0):
    return torch.optim.AdamW(params, lr=lr, weight_decay=weight_decay)


class _Res(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.body = nn.Sequential(nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c), nn.ReLU(),
                                  nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        return torch.relu(x + self.body(x))


@MODELS.register('resnet_tiny')
def resnet_tiny(num_classes=10, width=32):
    return nn.Sequential(
        nn.Conv2d(3, width, 3, padding=1, bias=False), nn.BatchNorm2d(width), nn.ReLU(),
        _Res(width), nn.MaxPool2d(2), _Res(width), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        nn.Linear(width, num_classes))


@MODELS.register('mlp')
def mlp(num_classes=10, hidden=256):
    return nn.Sequential(nn.Flatten(), nn.Linear(3 * 32 * 32, hidden), nn.ReLU(), nn.Linear(hidden, num_classes))
