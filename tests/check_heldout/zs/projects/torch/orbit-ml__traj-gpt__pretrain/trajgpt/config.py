import argparse
from dataclasses import dataclass, field, fields

import horovod.torch as hvd


@dataclass
class PretrainConfig:
    data: str = "data/trajectories.npz"
    n_bins: int = 256
    context: int = 64
    n_layer: int = 6
    n_head: int = 8
    n_embd: int = 256
    global_batch: int = 512
    grad_accum: int = 1
    lr: float = 6e-4
    min_lr: float = 6e-5
    warmup_iters: int = 1000
    iters_per_epoch: int = 500
    epochs: int = 20
    seed: int = 1337
    compile: bool = False
    out_dir: str = "out/traj-gpt"
    resume: str = "auto"
    world_size: int = field(default_factory=hvd.size)

    @property
    def micro_batch(self):
        return self.global_batch // (self.world_size * self.grad_accum)

    @classmethod
    def from_cli(cls, argv=None):
        p = argparse.ArgumentParser("traj-gpt pretraining")
        for f in fields(cls):
            if f.name == "world_size":
                continue
            if f.type is bool:
                p.add_argument(f"--{f.name}", action="store_true")
            else:
                p.add_argument(f"--{f.name}", type=f.type, default=f.default)
        return cls(**vars(p.parse_args(argv)))
