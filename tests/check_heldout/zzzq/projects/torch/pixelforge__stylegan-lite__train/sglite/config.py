from dataclasses import dataclass, field
import argparse


@dataclass
class Config:
    data: str = "ffhq-thumbs"
    resolution: int = 32
    z_dim: int = 256
    w_dim: int = 256
    mapping_layers: int = 4
    batch: int = 32
    iters_per_epoch: int = 1000
    epochs: int = 40
    g_lr: float = 2e-4
    d_lr: float = 2e-4
    betas: tuple = (0.0, 0.99)
    r1_gamma: float = 10.0
    d_reg_every: int = 16
    ema: bool = True
    ema_kimg: float = 10.0
    out: str = "out"
    seed: int = 0


def from_cli(argv=None):
    c = Config()
    ap = argparse.ArgumentParser()
    for k, v in vars(c).items():
        if isinstance(v, bool):
            ap.add_argument("--" + k, type=lambda s: s.lower() in ("1", "true", "yes"), default=v)
        elif isinstance(v, tuple):
            continue
        else:
            ap.add_argument("--" + k, type=type(v), default=v)
    ns = ap.parse_args(argv)
    for k, v in vars(ns).items():
        setattr(c, k, v)
    return c
