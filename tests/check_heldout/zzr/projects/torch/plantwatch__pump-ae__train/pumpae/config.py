import argparse
from dataclasses import dataclass, fields


@dataclass
class TrainConfig:
    data_dir: str = "data/pumps"
    out_dir: str = "runs/pump-ae"
    epochs: int = 40
    batch_size: int = 128          # per worker
    base_lr: float = 1e-3          # for a single worker, scaled by world size
    weight_decay: float = 1e-5
    latent_dim: int = 32
    threshold_quantile: float = 0.995
    patience: int = 5
    seed: int = 17
    num_workers: int = 2


def parse_config(argv=None) -> TrainConfig:
    parser = argparse.ArgumentParser(description="Pump AE (horovod)")
    for f in fields(TrainConfig):
        parser.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    ns = parser.parse_args(argv)
    return TrainConfig(**vars(ns))
