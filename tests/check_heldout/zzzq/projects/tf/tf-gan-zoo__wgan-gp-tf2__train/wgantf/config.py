import argparse
import json


class Cfg(dict):
    __getattr__ = dict.__getitem__
    __setattr__ = dict.__setitem__


def load(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/default.json")
    ap.add_argument("--override", nargs="*", default=[], help="key=value ...")
    ap.add_argument("--synthetic", action="store_true")
    a = ap.parse_args(argv)
    with open(a.config) as f:
        cfg = Cfg(json.load(f))
    for kv in a.override:
        k, v = kv.split("=", 1)
        cfg[k] = type(cfg[k])(v) if k in cfg else v
    cfg.synthetic = a.synthetic
    return cfg
