import json
from dataclasses import dataclass, fields


@dataclass
class RunConfig:
    data: str = "data/cifar100.npz"
    out_dir: str = "runs/default"
    epochs: int = 60
    batch_size: int = 128          # per worker
    base_lr: float = 0.05          # for one worker; multiplied by hvd.size()
    warmup_epochs: int = 5
    weight_decay: float = 5e-4
    patience: int = 10
    width: int = 4

    @classmethod
    def from_json(cls, path, **overrides):
        with open(path) as f:
            raw = json.load(f)
        known = {f.name for f in fields(cls)}
        raw = {k: v for k, v in raw.items() if k in known}
        raw.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**raw)
