import json
from dataclasses import dataclass


@dataclass
class SegConfig:
    tiles_dir: str = "data/tiles"
    num_classes: int = 6
    in_channels: int = 4
    epochs: int = 40
    batch_size: int = 16
    lr: float = 1e-3
    out_dir: str = "outputs"
    amp: bool = False


def load_config(path=None, **overrides):
    values = {}
    if path:
        with open(path) as f:
            values.update(json.load(f))
    values.update({k: v for k, v in overrides.items() if v is not None})
    return SegConfig(**values)
