import json
import os
from dataclasses import dataclass


@dataclass
class SweepConfig:
    data_dir: str = os.path.expandvars("$HOME/.keras/datasets")
    batch_size: int = 128          # per worker
    epochs: int = 12
    lr: float = 1e-3
    warmup_epochs: int = 2
    filters: int = 32
    dense: int = 128
    seed: int = 1234
    out_root: str = "sweep_runs"

    @classmethod
    def load(cls, path):
        if path and os.path.exists(path):
            with open(path) as fh:
                return cls(**json.load(fh))
        return cls()
