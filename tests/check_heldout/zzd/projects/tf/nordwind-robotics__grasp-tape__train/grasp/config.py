"""Configuration from GRASP_* environment variables (see params.env)."""
import os
from dataclasses import dataclass


def _env(name, default, cast=str):
    v = os.environ.get("GRASP_" + name)
    return default if v is None else cast(v)


@dataclass(frozen=True)
class Config:
    data: str = _env("DATA", "data/grasp_depth96.npz")
    out_dir: str = _env("OUT_DIR", "runs/grasp")
    global_batch: int = _env("GLOBAL_BATCH", 256, int)
    lr: float = _env("LR", 3e-4, float)
    epochs: int = _env("EPOCHS", 20, int)
    ckpt_every: int = _env("CKPT_EVERY", 500, int)
    seed: int = _env("SEED", 11, int)


CFG = Config()
