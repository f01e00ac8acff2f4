import argparse
from dataclasses import dataclass, fields

import yaml


@dataclass
class SegConfig:
    model: str = "fcn_small"
    num_classes: int = 21
    crop: int = 256
    batch_size: int = 8
    lr: float = 0.01
    momentum: float = 0.9
    epochs: int = 50
    amp: bool = True
    fp16_allreduce: bool = True
    clip_norm: float = 0.0
    num_workers: int = 2
    train_samples: int = 1024
    val_samples: int = 128
    world_size: int = 1          # >1 switches on the DistributedSampler
    out_dir: str = "runs/seg"
    log_every: int = 10
    cuda: bool = True


def load_config(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/default.yaml")
    ap.add_argument("--set", nargs="*", default=[], help="key=value overrides")
    a = ap.parse_args(argv)
    with open(a.config) as f:
        raw = yaml.safe_load(f) or {}
    for kv in a.set:
        k, v = kv.split("=", 1)
        raw[k] = yaml.safe_load(v)
    names = {f.name for f in fields(SegConfig)}
    return SegConfig(**{k: v for k, v in raw.items() if k in names})
