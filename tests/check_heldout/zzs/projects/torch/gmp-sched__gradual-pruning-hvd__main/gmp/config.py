import argparse
from dataclasses import dataclass, field

import horovod.torch as hvd


@dataclass
class TrainConfig:
    data_root: str = "~/data"
    arch: str = "resnet20"
    epochs: int = 90
    batch_size: int = 128           # per worker
    base_lr: float = 0.1            # for one worker
    weight_decay: float = 1e-4
    # Zhu & Gupta (2017) gradual magnitude pruning
    initial_sparsity: float = 0.0
    final_sparsity: float = 0.9
    prune_start: int = 10
    prune_end: int = 60
    prune_every: int = 2
    ckpt_dir: str = "checkpoints"
    world_size: int = field(init=False)
    lr: float = field(init=False)

    def __post_init__(self):
        self.world_size = hvd.size()
        self.lr = self.base_lr * self.world_size

    @classmethod
    def from_cli(cls, argv=None):
        defaults = cls.__dataclass_fields__
        ap = argparse.ArgumentParser("gradual magnitude pruning")
        for name, f in defaults.items():
            if f.init:
                ap.add_argument(f"--{name}", type=type(f.default), default=f.default)
        return cls(**vars(ap.parse_args(argv)))
