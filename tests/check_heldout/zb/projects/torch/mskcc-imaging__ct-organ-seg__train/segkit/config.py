import os
from dataclasses import dataclass, fields

import yaml


@dataclass
class SegConfig:
    data_root: str = "/gpfs/imaging/ct_organs/npz"
    output_root: str = "/gpfs/imaging/runs/ct_organs"
    n_classes: int = 5
    width: int = 16
    patch: int = 96
    patches_per_case: int = 24
    batch_size: int = 8          # per GPU
    lr: float = 3e-4             # tuned on a single A100
    weight_decay: float = 1e-4
    epochs: int = 60
    workers: int = 4
    seed: int = 1234

    @classmethod
    def from_yaml(cls, path):
        values = {}
        if path and os.path.exists(path):
            with open(path) as f:
                values = yaml.safe_load(f) or {}
        known = {f.name for f in fields(cls)}
        cfg = cls(**{k: v for k, v in values.items() if k in known})
        # the scheduler exports the staged copy of the data set
        cfg.data_root = os.environ.get("CT_DATA_STAGED", cfg.data_root)
        return cfg
