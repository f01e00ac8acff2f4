import json
from dataclasses import asdict, dataclass, field, fields
from typing import List


@dataclass
class Settings:
    experiment: str = "ctr-dcn"
    run_name: str = "dev"
    tracking_dir: str = "/var/lib/mltrack"
    train_shards: List[str] = field(default_factory=list)
    val_shards: List[str] = field(default_factory=list)
    batch_size: int = 256
    lr: float = 0.002
    epochs: int = 5
    num_features: int = 39
    ckpt_path: str = "artifacts/ctr.pt"

    @classmethod
    def from_sources(cls, path=None, overrides=()):
        values = {}
        if path:
            with open(path) as fh:
                values.update(json.load(fh))
        kinds = {f.name: f.type for f in fields(cls)}
        for item in overrides:
            key, value = item.split("=", 1)
            values[key] = value.split(",") if kinds[key] == List[str] else kinds[key](value)
        return cls(**values)

    def to_dict(self):
        return asdict(self)
