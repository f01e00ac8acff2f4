import argparse
import dataclasses
from dataclasses import dataclass, field
from typing import List


@dataclass
class TrainConfig:
    data_path: str = "data/churn_features.npz"
    output_dir: str = "runs/churn"
    hidden: List[int] = field(default_factory=lambda: [256, 128])
    dropout: float = 0.1
    # Global batch is fixed across cluster sizes; each rank gets global_batch // world_size.
    global_batch: int = 2048
    accum_steps: int = 2
    lr: float = 3e-3
    weight_decay: float = 1e-5
    epochs: int = 12
    val_fraction: float = 0.1
    seed: int = 1234
    amp: bool = True
    log_every: int = 50


def parse_config(argv=None) -> TrainConfig:
    cfg = TrainConfig()
    parser = argparse.ArgumentParser(description="train churn MLP")
    for f in dataclasses.fields(TrainConfig):
        default = getattr(cfg, f.name)
        flag = "--" + f.name.replace("_", "-")
        if isinstance(default, bool):
            parser.add_argument(flag, type=lambda s: s.lower() in ("1", "true", "yes"), default=default)
        elif isinstance(default, list):
            parser.add_argument(flag, type=int, nargs="+", default=default)
        else:
            parser.add_argument(flag, type=type(default), default=default)
    return TrainConfig(**vars(parser.parse_args(argv)))
