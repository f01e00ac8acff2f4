"""Defaults <- YAML <- command line."""
import argparse
import copy

import yaml

DEFAULTS = {
    "data": {
        "zarr_like_dir": "/glade/campaign/wrf_conus3km/npy",
        "variables": ["T2", "Q2", "U10", "V10", "PSFC"],
        "train_range": [0, 35064],
        "valid_range": [35064, 43824],
        "lead_steps": 2,
    },
    "model": {"base": 32, "levels": 3},
    "optim": {
        "lr": 1e-3,
        "scale_lr": False,          # multiply lr by the number of workers
        "warmup_epochs": 0,
        "batch_size": 4,
        "epochs": 30,
    },
    "run": {"out": "runs/wrfemu", "ckpt_keep": 3, "log_every": 50},
}


def _merge(a, b):
    out = copy.deepcopy(a)
    for k, v in b.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def get_config(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("-c", "--config", default="configs/conus3km.yaml")
    p.add_argument("--epochs", type=int)
    p.add_argument("--out")
    a = p.parse_args(argv)
    cfg = DEFAULTS
    if a.config:
        with open(a.config) as f:
            cfg = _merge(cfg, yaml.safe_load(f) or {})
    if a.epochs is not None:
        cfg["optim"]["epochs"] = a.epochs
    if a.out:
        cfg["run"]["out"] = a.out
    return cfg
