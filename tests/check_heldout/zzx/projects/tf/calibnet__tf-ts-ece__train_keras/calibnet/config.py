import argparse
from dataclasses import dataclass, asdict


@dataclass
class Config:
    dataset: str = "fashion_mnist"
    epochs: int = 30
    batch_size: int = 128      # per worker
    lr: float = 1e-3
    label_smoothing: float = 0.0
    val_fraction: float = 0.1
    out_dir: str = "results/calibnet"
    seed: int = 3

    @staticmethod
    def parse():
        p = argparse.ArgumentParser()
        for k, v in asdict(Config()).items():
            p.add_argument("--" + k.replace("_", "-"), type=type(v), default=v, dest=k)
        return Config(**vars(p.parse_args()))
