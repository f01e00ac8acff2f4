"""Tiny hydra-like config: a YAML file plus `a.b=value` overrides from the command line."""
import copy
import os

import yaml

DEFAULTS = {
    "seed": 0,
    "out_dir": "runs/default",
    "data": {"path": "data/s2_patches_64.npz"},
    "model": {"width": 32},
    "train": {"epochs": 40, "batch_size": 16, "lr": 5e-4, "warmup_epochs": 3, "plateau_patience": 4},
}


def _merge(base, extra):
    for k, v in extra.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _merge(base[k], v)
        else:
            base[k] = v
    return base


def load_config(path, overrides=()):
    cfg = copy.deepcopy(DEFAULTS)
    if os.path.exists(path):
        with open(path) as f:
            _merge(cfg, yaml.safe_load(f) or {})
    for item in overrides:
        key, value = item.split("=", 1)
        node = cfg
        *parents, leaf = key.split(".")
        for p in parents:
            node = node[p]
        node[leaf] = yaml.safe_load(value)
    return cfg
