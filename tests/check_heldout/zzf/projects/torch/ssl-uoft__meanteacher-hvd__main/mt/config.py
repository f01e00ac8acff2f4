from dataclasses import dataclass, fields

import yaml


@dataclass
class Config:
    data_root: str = "./data/svhn"
    num_labels: int = 1000
    batch_size: int = 128          # per worker
    unlabeled_ratio: int = 3
    lr: float = 0.1
    momentum: float = 0.9
    weight_decay: float = 5e-4
    epochs: int = 60
    ema_decay: float = 0.999
    consistency: float = 8.0
    rampup_epochs: int = 10
    out_dir: str = "checkpoints"
    log_every: int = 50


def load_config(path=None, **overrides):
    values = {}
    if path:
        with open(path) as f:
            values.update(yaml.safe_load(f) or {})
    values.update({k: v for k, v in overrides.items() if v is not None})
    known = {f.name for f in fields(Config)}
    return Config(**{k: v for k, v in values.items() if k in known})
