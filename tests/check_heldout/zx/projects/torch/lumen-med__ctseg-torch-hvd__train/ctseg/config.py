import json
from dataclasses import dataclass
from typing import Optional


@dataclass
class TrainConfig:
    data_root: str = "/data/lits/slices"
    out_dir: str = "outputs/ctseg"
    device: str = "cuda:0"
    in_channels: int = 1
    num_classes: int = 1
    batch_size: int = 16
    workers: int = 4
    lr: float = 2e-4
    weight_decay: float = 1e-4
    epochs: int = 100
    amp: bool = True
    seed: int = 0
    resume: Optional[str] = None

    @classmethod
    def from_file(cls, path):
        if path is None:
            return cls()
        with open(path) as f:
            return cls(**json.load(f))
