import argparse
from dataclasses import dataclass, field

import horovod.torch as hvd


@dataclass
class ExpConfig:
    data_dir: str = "data/sleepedf20_npz"
    out_dir: str = "checkpoints"
    fold: int = 0
    epochs: int = 60
    global_batch: int = 256
    lr: float = 1e-3
    patience: int = 10
    seed: int = 0
    batch_per_gpu: int = field(init=False, default=0)

    def __post_init__(self):
        # split the global batch over the GPUs (keeps the lr valid for any number of GPUs)
        self.batch_per_gpu = max(1, self.global_batch // hvd.size())

    @classmethod
    def from_args(cls, argv=None):
        p = argparse.ArgumentParser()
        p.add_argument("--data-dir", default=cls.data_dir)
        p.add_argument("--out-dir", default=cls.out_dir)
        p.add_argument("--fold", type=int, default=cls.fold)
        p.add_argument("--epochs", type=int, default=cls.epochs)
        p.add_argument("--global-batch", type=int, default=cls.global_batch)
        p.add_argument("--lr", type=float, default=cls.lr)
        p.add_argument("--patience", type=int, default=cls.patience)
        p.add_argument("--seed", type=int, default=cls.seed)
        return cls(**vars(p.parse_args(argv)))
