import argparse
import json

DEFAULTS = {
    "data": "/data/cifar10.npz",
    "output_dir": "results",
    "batch_size": 128,
    "epochs": 60,
    "lr_per_256": 0.2,
    "warmup_epochs": 3,
    "decay_epochs": [30, 45],
    "weight_decay": 1e-4,
    "num_classes": 10,
    "target_accuracy": 0.92,
    "seed": 7,
}


def load_config(argv):
    ap = argparse.ArgumentParser()
    ap.add_argument("--config", default="")
    ap.add_argument("--set", nargs="*", default=[], help="key=value overrides (JSON values)")
    args = ap.parse_args(argv)
    cfg = dict(DEFAULTS)
    if args.config:
        with open(args.config) as f:
            cfg.update(json.load(f))
    for kv in args.set:
        k, v = kv.split("=", 1)
        cfg[k] = json.loads(v)
    return cfg
