import argparse
from dataclasses import dataclass


@dataclass
class TrainConfig:
    catalog: str = "data/sdss_dr16_specz.npz"
    ckpt_dir: str = "ckpt/photoz_mlp"
    epochs: int = 60
    batch_size: int = 1024
    lr: float = 3e-4
    z_max: float = 1.5
    hidden: int = 512
    n_bins: int = 150       # redshift bins of the classification head
    val_fraction: float = 0.1
    seed: int = 7


def parse_config(argv=None) -> TrainConfig:
    cfg = TrainConfig()
    ap = argparse.ArgumentParser(description="photo-z MLP")
    for name, val in vars(cfg).items():
        ap.add_argument(f"--{name.replace('_', '-')}", type=type(val), default=val)
    return TrainConfig(**vars(ap.parse_args(argv)))
