import argparse
import json
import os

_HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_CONFIG = os.path.join(_HERE, "..", "configs", "default.json")


class Config(dict):
    __getattr__ = dict.__getitem__
    __setattr__ = dict.__setitem__


def load_config(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--config", default=DEFAULT_CONFIG)
    p.add_argument("--opts", nargs="*", default=[], help="key=value overrides")
    p.add_argument("--resume", default="")
    p.add_argument("--eval-only", action="store_true")
    a = p.parse_args(argv)
    with open(a.config) as f:
        cfg = Config(json.load(f))
    for kv in a.opts:
        k, v = kv.split("=", 1)
        cfg[k] = type(cfg[k])(v) if k in cfg else v
    cfg.resume = a.resume
    cfg.eval_only = a.eval_only
    return cfg
