import argparse
import copy
import os

import yaml

_DEFAULT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "configs", "default.yaml")


def _update(base, new):
    for k, v in new.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _update(base[k], v)
        else:
            base[k] = v
    return base


def load(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", help="experiment YAML, merged over configs/default.yaml")
    ap.add_argument("--epochs", type=int)
    ap.add_argument("--data", help="override data.path")
    a = ap.parse_args(argv)
    with open(_DEFAULT) as f:
        cfg = yaml.safe_load(f)
    if a.config:
        with open(a.config) as f:
            cfg = _update(copy.deepcopy(cfg), yaml.safe_load(f) or {})
    if a.epochs:
        cfg["train"]["epochs"] = a.epochs
    if a.data:
        cfg["data"]["path"] = a.data
    return cfg
