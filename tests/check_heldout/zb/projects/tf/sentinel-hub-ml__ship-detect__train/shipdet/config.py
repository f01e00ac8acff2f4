import os
from dataclasses import dataclass


def _env(name, default, cast=str):
    v = os.environ.get(name)
    return default if v is None else cast(v)


@dataclass
class ShipConfig:
    train_glob: str = "/work/s1/ships/records/train-*.tfrec"
    val_glob: str = "/work/s1/ships/records/val-*.tfrec"
    ckpt_dir: str = "/work/s1/ships/ckpt"
    chip: int = 256
    width: int = 32
    batch_size: int = 8          # per worker, per micro-batch
    accum_steps: int = 4         # micro-batches per optimizer update (16 GB cards)
    lr: float = 2e-4
    epochs: int = 60
    steps_per_epoch: int = 500
    val_steps: int = 50
    resume: bool = True

    @classmethod
    def from_env(cls):
        c = cls()
        c.train_glob = _env("SHIP_TRAIN_GLOB", c.train_glob)
        c.val_glob = _env("SHIP_VAL_GLOB", c.val_glob)
        c.ckpt_dir = _env("SHIP_CKPT_DIR", c.ckpt_dir)
        c.accum_steps = _env("SHIP_ACCUM", c.accum_steps, int)
        c.epochs = _env("SHIP_EPOCHS", c.epochs, int)
        c.steps_per_epoch = _env("SHIP_STEPS", c.steps_per_epoch, int)
        c.val_steps = _env("SHIP_VAL_STEPS", c.val_steps, int)
        c.resume = _env("SHIP_RESUME", "1" if c.resume else "0") == "1"
        return c
