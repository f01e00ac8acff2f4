import argparse
from dataclasses import dataclass, fields


@dataclass
class Config:
    features: str = "/datasets/kws/mfcc_v3.npz"
    workdir: str = "/experiments/kws/default"
    channels: int = 64
    epochs: int = 30
    batch_size: int = 128        # per worker
    lr: float = 0.02             # single-worker SGD lr; gradients are summed over workers
    momentum: float = 0.9
    label_smoothing: float = 0.1
    eval_every: int = 1
    seed: int = 17

    @classmethod
    def from_args(cls, argv=None):
        ap = argparse.ArgumentParser()
        for f in fields(cls):
            ap.add_argument("--" + f.name, type=f.type if callable(f.type) else type(f.default),
                            default=f.default)
        return cls(**vars(ap.parse_args(argv)))
