import json
from dataclasses import dataclass


@dataclass
class DataConfig:
    train_files: str
    valid_files: str
    max_len: int = 48
    batch_size: int = 64
    num_intents: int = 60
    vocab_size: int = 16000


@dataclass
class ModelConfig:
    embed_dim: int = 128
    hidden: int = 256
    dropout: float = 0.1


@dataclass
class OptimConfig:
    name: str = "adam"
    lr: float = 1e-3
    warmup_epochs: int = 2


@dataclass
class TrainConfig:
    epochs: int = 15
    out_dir: str = "runs/intent"


@dataclass
class Config:
    data: DataConfig
    model: ModelConfig
    optim: OptimConfig
    train: TrainConfig


def load(path):
    with open(path) as f:
        raw = json.load(f)
    return Config(data=DataConfig(**raw["data"]), model=ModelConfig(**raw.get("model", {})),
                  optim=OptimConfig(**raw.get("optim", {})), train=TrainConfig(**raw.get("train", {})))
