from dataclasses import dataclass, fields

import yaml


@dataclass
class TrainConfig:
    data_path: str = "itg_scan.npz"
    modes: int = 16
    width: int = 64
    n_layers: int = 4
    epochs: int = 100
    batch_size: int = 32            # per GPU
    lr: float = 1e-3
    ckpt_dir: str = "checkpoints"
    allreduce_grads: bool = False   # wrap the tape with hvd.DistributedGradientTape
    grad_clip: float = 1.0

    @classmethod
    def from_yaml(cls, path, **overrides):
        with open(path) as f:
            raw = yaml.safe_load(f) or {}
        raw.update({k: v for k, v in overrides.items() if v is not None})
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in raw.items() if k in known})
