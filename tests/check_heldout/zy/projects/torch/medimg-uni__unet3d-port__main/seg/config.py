from dataclasses import dataclass, field
from typing import Optional, Tuple

import yaml


@dataclass
class TrainConfig:
    data_root: str = "/data/msd/Task02_Heart/npz"
    out_dir: str = "runs/unet3d"
    epochs: int = 200
    batch_size: int = 2            # volumes per GPU
    base_lr: float = 2e-4          # tuned for a total batch of 8
    ref_batch: int = 8
    weight_decay: float = 1e-5
    patch: Tuple[int, int, int] = (64, 64, 64)
    num_classes: int = 2
    amp: bool = True
    workers: int = 4
    seed: int = 42
    resume: Optional[str] = None
    val_every: int = 5
    extra: dict = field(default_factory=dict)


def load_config(path=None, **overrides):
    cfg = TrainConfig()
    if path:
        with open(path) as f:
            for k, v in (yaml.safe_load(f) or {}).items():
                setattr(cfg, k, v)
    for k, v in overrides.items():
        if v is not None:
            setattr(cfg, k, v)
    return cfg
