"""Hydra-flavoured config composition: defaults <- yaml-like json file <- CLI overrides."""
import copy
import json

BASE = {
    "runtime": {"device": 0, "amp": True, "seed": 17},
    "data": {"manifest": "s3cache/protein-lm/manifest.txt", "seq_len": 128, "batch_size": 32, "workers": 2},
    "model": {"vocab": 33, "hidden": 256, "layers": 2},
    "optim": {"lr": 3e-4, "clip": 1.0},
    "trainer": {"epochs": 8, "out_dir": "outputs", "log_interval": 25},
}


def _merge(dst, src):
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            _merge(dst[k], v)
        else:
            dst[k] = v
    return dst


def compose(config_file=None, overrides=()):
    cfg = copy.deepcopy(BASE)
    if config_file:
        with open(config_file) as f:
            _merge(cfg, json.load(f))
    for ov in overrides:
        path, value = ov.split("=", 1)
        keys = path.lstrip("+").split(".")
        node = cfg
        for k in keys[:-1]:
            node = node[k]
        try:
            node[keys[-1]] = json.loads(value)
        except json.JSONDecodeError:
            node[keys[-1]] = value
    return cfg
