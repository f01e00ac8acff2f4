import json
from dataclasses import dataclass, fields


@dataclass
class PretrainConfig:
    seed: int = 7
    epochs: int = 100
    batch_size: int = 256          # per worker
    base_lr: float = 1e-3          # for a total batch of 256
    warmup_epochs: int = 5
    weight_decay: float = 1e-5
    hidden: int = 256
    emb_dim: int = 128
    corruption_rate: float = 0.6
    queue_size: int = 8192
    momentum: float = 0.996
    temperature: float = 0.1

    @classmethod
    def from_json(cls, path):
        with open(path) as f:
            raw = json.load(f)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in raw.items() if k in known})
