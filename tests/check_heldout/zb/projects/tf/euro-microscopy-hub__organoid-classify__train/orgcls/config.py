from dataclasses import dataclass, field

import yaml
import horovod.tensorflow.keras as hvd


@dataclass
class RunConfig:
    data_npz: str = "/data/organoids/bf_96px_v2.npz"
    out_dir: str = "/data/organoids/runs/default"
    n_classes: int = 5
    global_batch: int = 256
    head_lr: float = 1e-3        # per-worker values; run_stage scales them by the worker count
    full_lr: float = 1e-4
    head_epochs: int = 5
    full_epochs: int = 25
    warmup_epochs: int = 2
    seed: int = 99
    world_size: int = field(default_factory=hvd.size)

    @property
    def batch_per_worker(self):
        return self.global_batch // self.world_size

    @classmethod
    def from_yaml(cls, path):
        with open(path) as f:
            return cls(**(yaml.safe_load(f) or {}))
