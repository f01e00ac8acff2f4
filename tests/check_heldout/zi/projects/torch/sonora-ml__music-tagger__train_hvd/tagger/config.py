import argparse
import json
from dataclasses import dataclass, field, fields


@dataclass
class TaggerConfig:
    train_index: str = "data/mtat/train.json"
    valid_index: str = "data/mtat/valid.json"
    tags: list = field(default_factory=list)
    crop_frames: int = 256
    n_mels: int = 96
    patch: int = 16
    dim: int = 192
    depth: int = 4
    batch_size: int = 32          # per process
    base_lr: float = 3e-4         # tuned on one GPU
    warmup_epochs: int = 2
    epochs: int = 60
    patience: int = 8
    seed: int = 17
    out_dir: str = "outputs/tagger"


def load_config(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("config", nargs="?", help="JSON file with TaggerConfig fields")
    ap.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE")
    ns = ap.parse_args(argv)
    cfg = TaggerConfig()
    if ns.config:
        with open(ns.config) as f:
            for k, v in json.load(f).items():
                setattr(cfg, k, v)
    types = {f.name: type(getattr(cfg, f.name)) for f in fields(cfg)}
    for item in ns.set:
        k, v = item.split("=", 1)
        setattr(cfg, k, types[k](v))
    return cfg
