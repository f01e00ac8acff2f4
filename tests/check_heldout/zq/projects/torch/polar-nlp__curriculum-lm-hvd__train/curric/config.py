from dataclasses import dataclass, field
from typing import List

import yaml


@dataclass
class StageConfig:
    name: str
    data: str
    seq_len: int
    epochs: int = 1
    lr: float = 1e-3


@dataclass
class TrainConfig:
    batch_size: int = 64
    grad_clip: float = 1.0
    val_fraction: float = 0.05
    seed: int = 0
    log_every: int = 100
    ckpt_dir: str = "checkpoints"


@dataclass
class Config:
    model: dict
    train: TrainConfig
    stages: List[StageConfig] = field(default_factory=list)


def load_config(path):
    with open(path) as f:
        raw = yaml.safe_load(f)
    return Config(model=dict(raw["model"]),
                  train=TrainConfig(**raw.get("train", {})),
                  stages=[StageConfig(**s) for s in raw["stages"]])
