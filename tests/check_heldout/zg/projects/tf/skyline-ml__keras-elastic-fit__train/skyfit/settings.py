import argparse
from dataclasses import dataclass


@dataclass
class Settings:
    epochs: int = 24
    batch_size: int = 64
    base_lr: float = 0.001
    warmup_epochs: int = 3
    image_size: int = 64
    out_dir: str = "out"
    synthetic: bool = False


def from_cli(argv=None):
    p = argparse.ArgumentParser("skyfit")
    for name, value in Settings().__dict__.items():
        flag = "--" + name.replace("_", "-")
        if isinstance(value, bool):
            p.add_argument(flag, action="store_true")
        else:
            p.add_argument(flag, type=type(value), default=value)
    return Settings(**vars(p.parse_args(argv)))
