import json
from dataclasses import dataclass


@dataclass
class Config:
    train_file: str
    valid_file: str
    vocab_file: str
    labels_file: str
    max_len: int = 48
    embed_dim: int = 128
    hidden: int = 128
    batch_size: int = 64
    epochs: int = 30
    lr: float = 5e-4
    warmup_epochs: int = 2
    output_dir: str = "runs/intent"

    @classmethod
    def from_json(cls, path, **overrides):
        with open(path) as f:
            d = json.load(f)
        d.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**d)
