import argparse
from dataclasses import dataclass, fields


@dataclass
class TrainConfig:
    data_dir: str = "/projects/bbke/cifar10"
    epochs: int = 30
    batch_size: int = 128          # per GPU
    lr: float = 0.1                # single-GPU lr; gradients are summed over ranks (see dist.py)
    momentum: float = 0.9
    weight_decay: float = 5e-4
    workers: int = 4
    ckpt_dir: str = "checkpoints"
    save_every: int = 5

    @classmethod
    def from_args(cls):
        p = argparse.ArgumentParser()
        for f in fields(cls):
            p.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
        return cls(**vars(p.parse_args()))
