from dataclasses import dataclass, field, fields
from pathlib import Path

import yaml


@dataclass
class ModelConfig:
    name: str = "resnet18_cifar"
    num_classes: int = 10


@dataclass
class OptimConfig:
    name: str = "sgd"
    lr: float = 0.1
    momentum: float = 0.9
    weight_decay: float = 5e-4
    nesterov: bool = True
    schedule: str = "cosine"
    accum_steps: int = 1


@dataclass
class DataConfig:
    root: str = "/datasets/cifar10"
    batch_size: int = 128
    workers: int = 4
    synthetic: bool = False
    synthetic_size: int = 512


@dataclass
class ExperimentConfig:
    seed: int = 0
    epochs: int = 90
    out_dir: str = "outputs"
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)
    data: DataConfig = field(default_factory=DataConfig)

    @classmethod
    def from_yaml(cls, path):
        raw = yaml.safe_load(Path(path).read_text()) or {}
        sub = {"model": ModelConfig, "optim": OptimConfig, "data": DataConfig}
        kwargs = {}
        for f in fields(cls):
            if f.name not in raw:
                continue
            kwargs[f.name] = sub[f.name](**raw[f.name]) if f.name in sub else raw[f.name]
        return cls(**kwargs)
