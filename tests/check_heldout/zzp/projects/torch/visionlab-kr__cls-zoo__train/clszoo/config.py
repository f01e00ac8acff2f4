import argparse
import dataclasses
from dataclasses import dataclass, field

import yaml


@dataclass
class Config:
    data_root: str = "data/imagenette"
    arch: str = "resnet18"
    num_classes: int = 10
    img_size: int = 160
    batch_size: int = 64          # per process
    epochs: int = 90
    lr: float = 0.05              # for one process, scaled in train.py
    momentum: float = 0.9
    weight_decay: float = 5e-5
    mixup_alpha: float = 0.2
    ema_decay: float = 0.9998
    workers: int = 4
    out_dir: str = "runs"
    tags: list = field(default_factory=list)


def _coerce(value, ref):
    if isinstance(ref, bool):
        return str(value).lower() in ("1", "true", "yes")
    if isinstance(ref, (int, float)):
        return type(ref)(value)
    return value


def load_config(argv=None):
    parser = argparse.ArgumentParser("cls-zoo trainer")
    parser.add_argument("--config", default=None, help="yaml file")
    parser.add_argument("--opts", nargs="*", default=[], help="key=value overrides")
    args = parser.parse_args(argv)

    cfg = Config()
    if args.config:
        with open(args.config) as f:
            for k, v in (yaml.safe_load(f) or {}).items():
                setattr(cfg, k, v)
    for kv in args.opts:
        k, v = kv.split("=", 1)
        setattr(cfg, k, _coerce(v, getattr(cfg, k)))
    return cfg


def to_dict(cfg):
    return dataclasses.asdict(cfg)
