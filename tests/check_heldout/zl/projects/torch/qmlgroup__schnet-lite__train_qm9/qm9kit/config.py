from dataclasses import dataclass, fields

import yaml


@dataclass
class TrainConfig:
    data_dir: str = "data/qm9"
    target: str = "U0"
    batch_size: int = 64
    epochs: int = 300
    lr: float = 5e-4
    weight_decay: float = 0.0
    hidden: int = 128
    n_interactions: int = 3
    cutoff: float = 5.0
    val_every: int = 5
    num_workers: int = 2
    out_dir: str = "runs/qm9"


def load_config(path, **overrides):
    with open(path) as f:
        raw = yaml.safe_load(f) or {}
    names = {f.name for f in fields(TrainConfig)}
    raw.update({k: v for k, v in overrides.items() if v is not None})
    return TrainConfig(**{k: v for k, v in raw.items() if k in names})
