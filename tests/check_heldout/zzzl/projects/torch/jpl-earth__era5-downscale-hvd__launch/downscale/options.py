import argparse

import yaml

DEFAULTS = {
    "data_root": "/glade/derecho/scratch/downscale/conus",
    "variables": ["t2m", "u10", "v10", "tp"],
    "factor": 8,
    "epochs": 60,
    "batch_size": 16,
    "lr": 2e-4,
    "n_blocks": 8,
    "channels": 64,
    "ckpt_dir": "checkpoints",
    "keep_last": 2,
    "val_every": 1,
    "seed": 17,
}


def get_parser():
    p = argparse.ArgumentParser(description="ERA5 -> 4 km super-resolution, Horovod")
    p.add_argument("--config", default=None, help="YAML file merged over DEFAULTS")
    p.add_argument("--np", type=int, default=4, help="number of worker processes")
    p.add_argument("--hosts", default=None, help="e.g. node1:4,node2:4")
    p.add_argument("--epochs", type=int, default=None)
    p.add_argument("--lr", type=float, default=None)
    return p


def build_config(args):
    cfg = dict(DEFAULTS)
    if args.config:
        with open(args.config) as f:
            cfg.update(yaml.safe_load(f) or {})
    for k in ("epochs", "lr"):
        v = getattr(args, k)
        if v is not None:
            cfg[k] = v
    return cfg
