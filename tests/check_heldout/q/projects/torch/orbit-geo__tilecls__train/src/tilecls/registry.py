"""Model and optimizer factories used by every training entry point."""
import horovod.torch as hvd
import torch
import torch.nn as nn

MODELS = {}


def register_model(name):
    def deco(fn):
        MODELS[name] = fn
        return fn
    return deco


def _tilenet(width, num_classes):
    def block(cin, cout):
        return nn.Sequential(nn.Conv2d(cin, cout, 3, padding=1, bias=False), nn.BatchNorm2d(cout),
                             nn.ReLU(inplace=True), nn.MaxPool2d(2))
    return nn.Sequential(block(3, width), block(width, 2 * width), block(2 * width, 4 * width),
                         nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(4 * width, num_classes))


@register_model("tilenet_s")
def tilenet_s(num_classes):
    return _tilenet(16, num_classes)


@register_model("tilenet_m")
def tilenet_m(num_classes):
    return _tilenet(32, num_classes)


def build_model(name, num_classes):
    return MODELS[name](num_classes)


def build_optimizer(args, model, lr):
    decay, no_decay = [], []
    for n, p in model.named_parameters():
        (no_decay if p.ndim <= 1 else decay).append(p)
    opt = torch.optim.SGD([{"params": decay, "weight_decay": args.weight_decay},
                           {"params": no_decay, "weight_decay": 0.0}],
                          lr=lr, momentum=args.momentum)
    return hvd.DistributedOptimizer(opt, named_parameters=model.named_parameters())
