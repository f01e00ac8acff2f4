import dataclasses
from dataclasses import dataclass

import yaml


@dataclass
class TrainConfig:
    data_dir: str = "data/shards"
    val_dir: str = "data/val"
    out_dir: str = "runs/nano"
    seq_len: int = 256
    vocab_size: int = 32000
    d_model: int = 384
    n_layer: int = 6
    n_head: int = 6
    global_batch: int = 256      # sequences per optimizer step, all ranks together
    grad_accum: int = 4
    lr: float = 6e-4              # tuned for global_batch, not per rank
    min_lr: float = 6e-5
    warmup_steps: int = 500
    max_steps: int = 20000
    weight_decay: float = 0.1
    eval_every: int = 500
    save_every: int = 1000
    seed: int = 1337
    amp: bool = False


def _coerce(value, typ):
    if typ is bool:
        return str(value).lower() in ("1", "true", "yes")
    return typ(value)


def load_config(path=None, overrides=()):
    cfg = TrainConfig()
    if path:
        with open(path) as f:
            raw = yaml.safe_load(f) or {}
        for k, v in raw.items():
            setattr(cfg, k, v)
    types = {f.name: f.type for f in dataclasses.fields(cfg)}
    for item in overrides:
        key, _, value = item.partition("=")
        if key not in types:
            raise KeyError(f"unknown config key: {key}")
        typ = {"int": int, "float": float, "str": str, "bool": bool}.get(types[key], types[key])
        setattr(cfg, key, _coerce(value, typ))
    return cfg
