import argparse
import json

DEFAULTS = {
    "dataset": "cifar10",
    "width": 64,
    "epochs": 120,
    "batch_size": 128,       # per replica
    "lr": 0.1,               # per replica
    "first_decay_epochs": 10,
    "label_smoothing": 0.1,
    "mixup_alpha": 0.2,
    "seed": 1,
    "out": "experiments",
}


def get_config():
    parser = argparse.ArgumentParser()
    parser.add_argument("--config", help="json file with overrides")
    parser.add_argument("--set", nargs="*", default=[], metavar="KEY=VALUE")
    args = parser.parse_args()
    cfg = dict(DEFAULTS)
    if args.config:
        with open(args.config) as f:
            cfg.update(json.load(f))
    for item in args.set:
        key, value = item.split("=", 1)
        cfg[key] = type(DEFAULTS[key])(value)
    return cfg
