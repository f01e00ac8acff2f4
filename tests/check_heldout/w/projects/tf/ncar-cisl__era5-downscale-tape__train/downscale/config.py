from dataclasses import dataclass

import yaml


@dataclass
class Config:
    train_file: str
    val_file: str
    upscale: int = 4
    epochs: int = 30
    batch_per_gpu: int = 16
    base_lr: float = 2e-4
    mixed_precision: bool = False
    out_dir: str = "output"


def load(path):
    with open(path) as f:
        raw = yaml.safe_load(f)
    d, t = raw["data"], raw["train"]
    return Config(train_file=d["train"], val_file=d["val"], upscale=d.get("upscale", 4), **t)
