from dataclasses import dataclass, fields

import yaml


@dataclass
class TrainConfig:
    arch: str = "resnet18"
    num_classes: int = 10
    data_dir: str = "./data"
    batch_size: int = 128          # per rank
    lr: float = 0.05               # single-GPU learning rate, scaled by the world size in train.py
    momentum: float = 0.9
    weight_decay: float = 5e-4
    epochs: int = 90
    amp: bool = False
    clip_grad: float = 0.0
    workers: int = 4
    ckpt_dir: str = "ckpt"
    log_dir: str = "logs"


def _cast(value, typ):
    if typ is bool:
        return str(value).lower() in ("1", "true", "yes")
    return typ(value)


def load_config(path, overrides=()):
    raw = {}
    try:
        with open(path) as fh:
            raw = yaml.safe_load(fh) or {}
    except FileNotFoundError:
        pass
    for item in overrides:
        key, value = item.split("=", 1)
        raw[key] = value
    types = {f.name: f.type for f in fields(TrainConfig)}
    kwargs = {k: _cast(v, eval(types[k]) if isinstance(types[k], str) else types[k])
              for k, v in raw.items() if k in types}
    return TrainConfig(**kwargs)
