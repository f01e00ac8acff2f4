import argparse
from dataclasses import asdict, dataclass, fields

import yaml


@dataclass
class Config:
    manifest: str = "data/train_manifest.txt"
    val_manifest: str = "data/val_manifest.txt"
    seq_len: int = 128
    tokens_per_step: int = 131072     # global, across all ranks and micro-batches
    accum: int = 2
    vocab: int = 32768
    emb: int = 256
    hidden: int = 512
    lr: float = 1e-3
    warmup: int = 200
    steps: int = 8000
    eval_every: int = 400
    save_every: int = 1000
    out: str = "out/clm"
    resume: str = ""

    def to_dict(self):
        return asdict(self)


def parse_config(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--cfg", default=None, help="YAML file")
    ap.add_argument("--opts", nargs=argparse.REMAINDER, default=[], help="KEY VALUE pairs")
    ns = ap.parse_args(argv)
    cfg = Config()
    if ns.cfg:
        for k, v in (yaml.safe_load(open(ns.cfg)) or {}).items():
            setattr(cfg, k, v)
    kinds = {f.name: f.type for f in fields(Config)}
    for k, v in zip(ns.opts[::2], ns.opts[1::2]):
        cast = {"int": int, "float": float, "str": str}.get(kinds[k], kinds[k])
        setattr(cfg, k, cast(v))
    return cfg
