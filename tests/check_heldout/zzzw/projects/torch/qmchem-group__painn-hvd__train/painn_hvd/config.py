import json
from dataclasses import dataclass, asdict, fields


@dataclass
class TrainConfig:
    train_npz: str = "data/train.npz"
    val_npz: str = "data/val.npz"
    batch_size: int = 8
    epochs: int = 100
    lr: float = 5e-4
    weight_decay: float = 0.0
    cutoff: float = 5.0
    hidden: int = 128
    n_layers: int = 3
    n_rbf: int = 20
    w_energy: float = 0.01
    w_forces: float = 0.99
    ema_decay: float = 0.99
    grad_clip: float = 10.0
    ckpt_dir: str = "checkpoints"
    seed: int = 42
    workers: int = 2

    @classmethod
    def from_json(cls, path, **overrides):
        with open(path) as f:
            d = json.load(f)
        names = {f.name for f in fields(cls)}
        d = {k: v for k, v in d.items() if k in names}
        d.update({k: v for k, v in overrides.items() if v is not None})
        return cls(**d)

    def to_dict(self):
        return asdict(self)
