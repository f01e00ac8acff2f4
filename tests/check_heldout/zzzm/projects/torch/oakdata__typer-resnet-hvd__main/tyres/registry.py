"""Name -> factory registries, gin style. Add new entries with the decorators."""
import torch
import torch.nn as nn
import torchvision

MODELS = {}
OPTIMIZERS = {}
SCHEDULERS = {}


def register_model(name):
    def _wrap(fn):
        MODELS[name] = fn
        return fn
    return _wrap


def register_optimizer(name):
    def _wrap(fn):
        OPTIMIZERS[name] = fn
        return fn
    return _wrap


@register_model("resnet18_cifar")
def resnet18_cifar(num_classes=10):
    m = torchvision.models.resnet18(num_classes=num_classes)
    m.conv1 = nn.Conv2d(3, 64, 3, 1, 1, bias=False)
    m.maxpool = nn.Identity()
    return m


@register_model("resnet50")
def resnet50(num_classes=1000):
    return torchvision.models.resnet50(num_classes=num_classes)


@register_optimizer("sgd")
def sgd(params, ocfg):
    return torch.optim.SGD(params, lr=ocfg.lr, momentum=ocfg.momentum,
                           weight_decay=ocfg.weight_decay, nesterov=ocfg.nesterov)


@register_optimizer("adamw")
def adamw(params, ocfg):
    return torch.optim.AdamW(params, lr=ocfg.lr, weight_decay=ocfg.weight_decay)


def build_model(mcfg):
    return MODELS[mcfg.name](num_classes=mcfg.num_classes)


def build_optimizer(ocfg, params):
    try:
        factory = OPTIMIZERS[ocfg.name]
    except KeyError:
        raise ValueError(f"unknown optimizer {ocfg.name!r}; known: {sorted(OPTIMIZERS)}")
    return factory(params, ocfg)


def build_scheduler(ocfg, optimizer, steps_per_epoch, epochs):
    total = steps_per_epoch * epochs
    if ocfg.schedule == "cosine":
        return torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, T_max=total)
    if ocfg.schedule == "step":
        return torch.optim.lr_scheduler.StepLR(optimizer, step_size=30 * steps_per_epoch, gamma=0.1)
    return torch.optim.lr_scheduler.LambdaLR(optimizer, lambda s: 1.0)
