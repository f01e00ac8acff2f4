import dataclasses
from dataclasses import dataclass

import yaml


@dataclass
class TrainConfig:
    data_dir: str = "data/intents"
    vocab_file: str = "data/intents/vocab.txt"
    max_len: int = 64
    global_batch_size: int = 256
    lr: float = 3e-4
    weight_decay: float = 0.01
    warmup_ratio: float = 0.06
    epochs: int = 4
    clip_norm: float = 1.0
    amp: bool = True
    d_model: int = 256
    n_layers: int = 4
    n_heads: int = 4
    out_dir: str = "runs/intent"
    seed: int = 17


def load_config(path, overrides=()):
    with open(path) as f:
        raw = yaml.safe_load(f) or {}
    for item in overrides:
        key, val = item.split("=", 1)
        raw[key] = yaml.safe_load(val)
    known = {f.name for f in dataclasses.fields(TrainConfig)}
    unknown = set(raw) - known
    if unknown:
        raise KeyError(f"unknown config keys: {sorted(unknown)}")
    return TrainConfig(**raw)
