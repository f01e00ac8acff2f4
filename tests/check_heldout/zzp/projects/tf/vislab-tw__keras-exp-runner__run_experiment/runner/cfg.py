import argparse
import os
import time

import yaml

BASE = dict(
    name="fmnist_cnn",
    global_batch=256,          # split across workers
    lr=2e-3,                   # tuned for the global batch
    epochs=30,
    cycle_epochs=5,
    cycle_mult=2,
    mixup_alpha=0.0,
    seed=7,
    root="exp",
)


def parse():
    ap = argparse.ArgumentParser()
    ap.add_argument("config", nargs="?", help="optional yaml overriding BASE")
    ap.add_argument("-o", "--override", action="append", default=[], help="key=value")
    a = ap.parse_args()
    cfg = dict(BASE)
    if a.config:
        with open(a.config) as f:
            cfg.update(yaml.safe_load(f))
    for kv in a.override:
        k, v = kv.split("=", 1)
        cfg[k] = yaml.safe_load(v)
    return cfg


def experiment_dir(cfg, rank):
    return os.path.join(cfg["root"], cfg["name"], time.strftime("%Y%m%d-%H%M") + f"-r{rank}")
