import json
from dataclasses import dataclass, field, asdict
from typing import List


@dataclass
class SweepConfig:
    model: str = "mlp"
    lrs: List[float] = field(default_factory=lambda: [0.01, 0.03, 0.1])
    batch_size: int = 64          # per worker
    epochs: int = 5
    momentum: float = 0.9
    weight_decay: float = 5e-4
    n_samples: int = 8192
    n_features: int = 32
    n_classes: int = 4
    seed: int = 1234
    out_dir: str = "runs/sweep"

    @classmethod
    def from_json(cls, path):
        with open(path) as f:
            raw = json.load(f)
        return cls(**raw)

    def to_dict(self):
        return asdict(self)
