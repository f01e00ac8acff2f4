import argparse
import os
from dataclasses import asdict, dataclass, fields


@dataclass
class BenchConfig:
    dataset: str = "cifar10"          # cifar10 | synthetic (fixed random batch, timing only)
    batch_size: int = 128             # per rank
    lr: float = 0.01                  # per-rank lr, multiplied by hvd.size()
    epochs: int = 3
    steps_per_epoch: int = 100
    warmup_steps: int = 10
    intra_threads: int = int(os.environ.get("OMP_NUM_THREADS", "8"))
    inter_threads: int = 2
    ckpt_dir: str = "./checkpoints"
    json_out: str = "bench_result.json"

    @classmethod
    def from_cli(cls, argv=None):
        p = argparse.ArgumentParser()
        for f in fields(cls):
            p.add_argument(f"--{f.name.replace('_', '-')}", type=type(f.default), default=f.default)
        return cls(**vars(p.parse_args(argv)))

    def as_dict(self):
        return asdict(self)
