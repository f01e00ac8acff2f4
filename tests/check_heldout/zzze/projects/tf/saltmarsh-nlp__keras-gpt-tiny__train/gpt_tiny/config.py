import argparse

import yaml


def get_config():
    ap = argparse.ArgumentParser(description="keras-gpt-tiny")
    ap.add_argument("--config", default="configs/default.yaml")
    ap.add_argument("-o", "--override", action="append", default=[], help="key=value")
    ap.add_argument("--initial-epoch", type=int, default=0)
    args = ap.parse_args()
    with open(args.config) as f:
        cfg = yaml.safe_load(f)
    for kv in args.override:
        k, v = kv.split("=", 1)
        cfg[k] = yaml.safe_load(v)
    cfg["initial_epoch"] = args.initial_epoch
    return cfg
