"""Reads the job JSON and fills defaults; every key can be overridden with --set a.b=value."""
import copy
import json

DEFAULTS = {
    "dataset": {"path": "", "window": 28, "horizon": 7},
    "model": {"hidden": 64, "layers": 2},
    "optim": {"lr": 1e-3, "batch_size": 128, "epochs": 10, "patience": 3},
    "output_dir": "./outputs",
}


def _merge(base, over):
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _merge(base[k], v)
        else:
            base[k] = v
    return base


def load_config(path, overrides=()):
    cfg = copy.deepcopy(DEFAULTS)
    with open(path) as f:
        _merge(cfg, json.load(f))
    for item in overrides:
        key, raw = item.split("=", 1)
        node = cfg
        *parents, leaf = key.split(".")
        for p in parents:
            node = node[p]
        node[leaf] = type(node[leaf])(raw) if leaf in node else raw
    return cfg
