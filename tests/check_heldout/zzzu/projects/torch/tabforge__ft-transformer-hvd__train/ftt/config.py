import copy
import os

import yaml

DEFAULTS = {
    "data": {"csv": None, "target": "target", "categorical": [], "valid_frac": 0.15, "seed": 1337},
    "model": {"d_token": 192, "n_blocks": 3, "n_heads": 8, "dropout": 0.1},
    "train": {"lr": 1e-4, "weight_decay": 1e-5, "batch_size": 256, "epochs": 50,
              "patience": 8, "out_dir": "runs/ftt", "num_workers": 2},
}


def _merge(base, override):
    out = copy.deepcopy(base)
    for k, v in (override or {}).items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def load_config(path=None, overrides=None):
    cfg = DEFAULTS
    if path and os.path.exists(path):
        with open(path) as f:
            cfg = _merge(cfg, yaml.safe_load(f))
    for item in overrides or []:
        # "train.lr=3e-4" style overrides
        key, val = item.split("=", 1)
        sect, name = key.split(".")
        cfg = _merge(cfg, {sect: {name: yaml.safe_load(val)}})
    return cfg
