import argparse
import yaml


class Cfg(dict):
    __getattr__ = dict.__getitem__
    __setattr__ = dict.__setitem__


def load_config():
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="configs/avazu.yaml")
    ap.add_argument("--epochs", type=int, default=None)
    ap.add_argument("--batch_size", type=int, default=None)
    ap.add_argument("--cpu", action="store_true")
    ns = ap.parse_args()
    with open(ns.config) as f:
        cfg = Cfg(yaml.safe_load(f))
    for k in ("epochs", "batch_size"):
        if getattr(ns, k) is not None:
            cfg[k] = getattr(ns, k)
    cfg.cpu = ns.cpu
    return cfg
