import json
from dataclasses import dataclass, field, fields, is_dataclass


@dataclass
class DataConfig:
    train_npz: str = "data/eurosat_train.npz"
    val_npz: str = "data/eurosat_val.npz"
    batch_size: int = 64            # per replica
    shuffle_buffer: int = 4096


@dataclass
class ModelConfig:
    backbone: str = "small_cnn"
    num_classes: int = 10
    dropout: float = 0.2


@dataclass
class OptimConfig:
    lr: float = 1e-3                # single-replica lr
    weight_decay: float = 1e-4
    ema_momentum: float = 0.999
    warmup_epochs: int = 3


@dataclass
class ExperimentConfig:
    name: str = "eurosat_small_cnn"
    epochs: int = 30
    mixed_precision: bool = True
    out_dir: str = "experiments"
    data: DataConfig = field(default_factory=DataConfig)
    model: ModelConfig = field(default_factory=ModelConfig)
    optim: OptimConfig = field(default_factory=OptimConfig)

    @classmethod
    def from_json(cls, path):
        cfg = cls()
        if path:
            with open(path) as f:
                _apply(cfg, json.load(f))
        return cfg


def _apply(obj, d):
    for f in fields(obj):
        if f.name in d:
            cur = getattr(obj, f.name)
            if is_dataclass(cur):
                _apply(cur, d[f.name])
            else:
                setattr(obj, f.name, d[f.name])
