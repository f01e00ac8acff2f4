import argparse
from dataclasses import dataclass, fields

import horovod.torch as hvd


@dataclass
class TrainConfig:
    data_path: str = "data/esol_graphs.jsonl"
    val_fraction: float = 0.1
    global_batch: int = 256
    lr: float = 1e-3
    epochs: int = 60
    hidden: int = 300
    depth: int = 3
    dropout: float = 0.0
    seed: int = 0
    ckpt_dir: str = "ckpt"
    resume: bool = False

    def __post_init__(self):
        # the batch is defined globally so results do not depend on the number of GPUs
        if self.global_batch % hvd.size():
            raise ValueError("global_batch must be divisible by the number of workers")
        self.batch_per_rank = self.global_batch // hvd.size()

    @classmethod
    def from_cli(cls, argv=None):
        ap = argparse.ArgumentParser()
        for f in fields(cls):
            if f.type is bool or isinstance(f.default, bool):
                ap.add_argument("--" + f.name, action="store_true")
            else:
                ap.add_argument("--" + f.name, type=type(f.default), default=f.default)
        return cls(**vars(ap.parse_args(argv)))
