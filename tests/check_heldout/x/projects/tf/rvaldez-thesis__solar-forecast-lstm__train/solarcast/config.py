import argparse
from dataclasses import dataclass


@dataclass
class Config:
    data_dir: str = "data/pv"
    ckpt_dir: str = "ckpt/lstm"
    target_plant: str = "plant_13"
    window: int = 48            # hours of history
    horizon: int = 24           # hours ahead
    n_features: int = 7
    units: int = 64
    epochs: int = 30
    batch_size: int = 64        # per worker
    lr: float = 1e-3
    clipnorm: float = 1.0
    finetune_epochs: int = 5
    finetune_lr: float = 1e-4
    seed: int = 3


def get_config(argv=None):
    p = argparse.ArgumentParser()
    for name, default in Config().__dict__.items():
        p.add_argument("--" + name.replace("_", "-"), type=type(default), default=default)
    return Config(**vars(p.parse_args(argv)))
