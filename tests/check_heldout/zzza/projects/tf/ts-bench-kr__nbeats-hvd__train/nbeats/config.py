"""Experiment configuration (M4-style univariate benchmark)."""
from dataclasses import dataclass

import horovod.tensorflow as hvd


@dataclass
class TrainConfig:
    horizon: int = 18
    lookback_mult: int = 3            # lookback = mult * horizon
    n_series: int = 400
    series_len: int = 300
    stacks: int = 3
    blocks_per_stack: int = 2
    units: int = 128
    batch_size: int = 128             # per worker
    lr: float = 1e-3                  # scaled by hvd.size() in train.py
    epochs: int = 10
    steps_per_epoch: int = 50
    seed: int = 2024 + hvd.rank()     # per-worker sampling seed
    ckpt_dir: str = "checkpoints/nbeats"

    @property
    def lookback(self):
        return self.lookback_mult * self.horizon
