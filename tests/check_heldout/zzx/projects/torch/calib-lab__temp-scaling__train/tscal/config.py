import argparse
from dataclasses import dataclass, fields


@dataclass
class TrainConfig:
    data_dir: str = "data/cifar100"
    arch: str = "resnet18"
    epochs: int = 200
    batch_size: int = 128         # per worker
    lr: float = 0.1
    momentum: float = 0.9
    weight_decay: float = 5e-4
    milestones: tuple = (60, 120, 160)
    val_size: int = 5000          # held out from the train set for temperature scaling
    seed: int = 0
    workers: int = 4
    output: str = "outputs/tscal"

    @classmethod
    def from_cli(cls, argv=None):
        ap = argparse.ArgumentParser()
        for f in fields(cls):
            if f.name == "milestones":
                ap.add_argument("--milestones", type=int, nargs="+", default=list(f.default))
            else:
                ap.add_argument(f"--{f.name}", type=type(f.default), default=f.default)
        return cls(**vars(ap.parse_args(argv)))
