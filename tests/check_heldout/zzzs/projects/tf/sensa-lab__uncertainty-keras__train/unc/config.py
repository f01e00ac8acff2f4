import json
from dataclasses import dataclass, replace


@dataclass
class Config:
    dataset: str = "cifar10"
    npz_path: str = ""
    n_classes: int = 10
    n_initial: int = 1000
    query_size: int = 1000
    rounds: int = 8
    epochs: int = 20
    batch_size: int = 64
    lr: float = 5e-4
    seed: int = 17

    @classmethod
    def load(cls, path=None):
        cfg = cls()
        if path:
            with open(path) as f:
                cfg = replace(cfg, **json.load(f))
        return cfg
