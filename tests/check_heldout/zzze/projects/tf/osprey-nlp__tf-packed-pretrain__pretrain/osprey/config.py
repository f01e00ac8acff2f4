import argparse
from dataclasses import dataclass, field, fields

import yaml


@dataclass
class Config:
    shards: list = field(default_factory=lambda: ["data/shard_000.npy"])
    val_shard: str = "data/val.npy"
    seq_len: int = 128
    micro_batch: int = 32
    accum_steps: int = 4
    vocab: int = 16384
    dim: int = 256
    depth: int = 4
    lr: float = 3e-4
    warmup: int = 400
    total_steps: int = 20000
    val_steps: int = 20
    log_every: int = 100
    eval_every: int = 1000
    ckpt_every: int = 1000
    ckpt_dir: str = "checkpoints"


def load(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--config")
    ap.add_argument("dotlist", nargs="*", help="key=value overrides")
    ns = ap.parse_args(argv)
    raw = yaml.safe_load(open(ns.config)) if ns.config else {}
    cfg = Config(**raw)
    for kv in ns.dotlist:
        k, v = kv.split("=", 1)
        setattr(cfg, k, yaml.safe_load(v))
    return cfg
