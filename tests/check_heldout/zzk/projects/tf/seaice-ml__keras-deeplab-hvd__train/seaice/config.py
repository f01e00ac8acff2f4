import json
from dataclasses import dataclass, asdict


@dataclass
class Config:
    data_path: str = "data/seaice_tiles.npz"
    tile: int = 128
    num_classes: int = 4  # open water, new ice, first-year ice, multi-year ice
    global_batch: int = 64  # split evenly over the workers
    epochs: int = 60
    lr: float = 1e-3  # tuned for the global batch above, independent of the worker count
    warmup_epochs: int = 3
    out_dir: str = "runs/deeplab"

    @classmethod
    def from_json(cls, path):
        with open(path) as f:
            return cls(**json.load(f))

    def dump(self, path):
        with open(path, "w") as f:
            json.dump(asdict(self), f, indent=2)
