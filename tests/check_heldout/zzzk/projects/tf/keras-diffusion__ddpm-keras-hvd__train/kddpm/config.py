import argparse
from dataclasses import dataclass


@dataclass
class Config:
    data_dir: str = "data/celeba32"
    ckpt_dir: str = "checkpoints/ddpm_keras"
    img_size: int = 32
    width: int = 64
    timesteps: int = 1000
    batch_size: int = 64
    epochs: int = 100
    lr: float = 2e-4
    wd: float = 1e-4
    ema: float = 0.999
    sample_every: int = 10
    num_samples: int = 16


def parse_config(argv=None):
    ap = argparse.ArgumentParser()
    for name, field in Config.__dataclass_fields__.items():
        ap.add_argument("--" + name, type=type(field.default), default=field.default)
    return Config(**vars(ap.parse_args(argv)))
