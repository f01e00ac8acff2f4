import json
from dataclasses import dataclass, fields


@dataclass
class Config:
    data_path: str = "data/ptbxl_500hz.npz"
    seq_len: int = 2500
    n_leads: int = 12
    n_classes: int = 5
    d_model: int = 128
    n_heads: int = 4
    n_layers: int = 4
    batch_size: int = 32
    lr: float = 3e-4
    epochs: int = 30
    mixed_precision: bool = False
    seed: int = 17


def load_config(path=None):
    cfg = Config()
    if path:
        with open(path) as f:
            overrides = json.load(f)
        known = {f.name for f in fields(Config)}
        for k, v in overrides.items():
            if k not in known:
                raise KeyError(f"unknown config key {k}")
            setattr(cfg, k, v)
    return cfg
