import dataclasses
import json
from typing import List


@dataclasses.dataclass
class PipelineConfig:
    train_path: str = "data/train.npz"
    val_path: str = "data/val.npz"
    output_dir: str = "artifacts/train"
    num_proc: int = 2
    model: dict = dataclasses.field(default_factory=lambda: {"name": "wide_deep", "hidden": [128, 64]})
    optimizer: dict = dataclasses.field(default_factory=lambda: {"name": "adam", "lr": 1e-3})
    batch_size: int = 256
    epochs: int = 10
    seed: int = 0

    @classmethod
    def from_json(cls, path):
        with open(path) as f:
            raw = json.load(f)
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in raw.items() if k in known})

    def to_dict(self):
        return dataclasses.asdict(self)
