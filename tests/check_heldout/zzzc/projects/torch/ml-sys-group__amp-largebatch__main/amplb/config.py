import json
from dataclasses import asdict, dataclass, field, fields


@dataclass
class Config:
    optimizer: str = "adamw"
    lr: float = 5e-4               # per-worker reference lr
    batch_size: int = 256          # per worker
    epochs: int = 8
    warmup_epochs: int = 1
    amp: bool = True
    grad_clip: float = 0.0
    data_seed: int = 17
    ckpt_dir: str = "checkpoints"
    tags: list = field(default_factory=list)

    @classmethod
    def from_json(cls, path):
        with open(path) as f:
            raw = json.load(f)
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in raw.items() if k in known})

    def to_dict(self):
        return asdict(self)
