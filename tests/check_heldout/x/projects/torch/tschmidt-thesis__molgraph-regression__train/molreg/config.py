import json
import os
from dataclasses import dataclass, fields


@dataclass
class Config:
    data: str = "data/qm9_ecfp2048.npz"
    out_dir: str = "runs/fp_mlp"
    epochs: int = 100
    global_batch_size: int = 512      # split over the workers, see train.py
    lr: float = 5e-4
    hidden: int = 512
    dropout: float = 0.1
    plateau_patience: int = 5
    seed: int = 7


def load_config(path):
    """Config defaults, overridden by the keys of a JSON file when it exists."""
    cfg = Config()
    if path and os.path.exists(path):
        with open(path) as f:
            over = json.load(f)
        known = {f.name for f in fields(Config)}
        for k, v in over.items():
            if k not in known:
                raise KeyError(f"unknown config key {k!r} in {path}")
            setattr(cfg, k, v)
    return cfg
