import math

import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset, random_split
from torch.utils.data.distributed import DistributedSampler

from fexp import dist

MODELS = {}


def register_model(name):
    def deco(fn):
        MODELS[name] = fn
        return fn
    return deco


@register_model("mlp")
def _mlp(in_features, hidden, num_classes, dropout=0.0):
    layers, d = [], in_features
    for h in hidden:
        layers += [nn.Linear(d, h), nn.GELU(), nn.Dropout(dropout)]
        d = h
    layers.append(nn.Linear(d, num_classes))
    return nn.Sequential(*layers)


@register_model("linear")
def _linear(in_features, num_classes, **_):
    return nn.Linear(in_features, num_classes)


def build_model(cfg):
    m = dict(cfg["model"])
    return MODELS[m.pop("name")](**m)


def build_dataloaders(cfg):
    d = cfg["data"]
    blob = torch.load(d["path"])
    full = TensorDataset(blob["x"].float(), blob["y"].long())
    n_val = int(len(full) * d["val_fraction"])
    train_set, val_set = random_split(full, [len(full) - n_val, n_val],
                                      generator=torch.Generator().manual_seed(cfg["seed"]))
    tr_sampler = DistributedSampler(train_set, num_replicas=dist.world_size(), rank=hvd_rank(),
                                    shuffle=True, seed=cfg["seed"])
    va_sampler = DistributedSampler(val_set, num_replicas=dist.world_size(), rank=hvd_rank(),
                                    shuffle=False)
    train_loader = DataLoader(train_set, batch_size=d["batch_size"], sampler=tr_sampler,
                              num_workers=d["num_workers"], drop_last=True)
    val_loader = DataLoader(val_set, batch_size=d["batch_size"], sampler=va_sampler,
                            num_workers=d["num_workers"])
    return train_loader, val_loader


def hvd_rank():
    import horovod.torch as hvd
    return hvd.rank()


OPTIMIZERS = {
    "adamw": torch.optim.AdamW,
    "adam": torch.optim.Adam,
    "sgd": lambda params, lr, weight_decay: torch.optim.SGD(params, lr=lr, momentum=0.9,
                                                            weight_decay=weight_decay),
}


def build_optimizer(cfg, model):
    o = cfg["optim"]
    lr = o["lr"] * (dist.world_size() if o.get("scale_lr", True) else 1)
    return OPTIMIZERS[o["name"]](model.parameters(), lr=lr, weight_decay=o["weight_decay"])


def build_scheduler(cfg, optimizer, steps_per_epoch):
    s = cfg["sched"]
    total = cfg["train"]["epochs"] * steps_per_epoch
    warm = s.get("warmup_epochs", 0) * steps_per_epoch

    def f(step):
        if step < warm:
            return (step + 1) / warm
        return 0.5 * (1 + math.cos(math.pi * (step - warm) / max(1, total - warm)))
    return torch.optim.lr_scheduler.LambdaLR(optimizer, f)
