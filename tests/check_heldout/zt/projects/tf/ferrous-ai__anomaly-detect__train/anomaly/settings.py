import copy
import json
import sys

DEFAULTS = {
    "io": {"manifest": "manifests/sensors-2024q4.json", "window": 64, "channels": 12, "batch": 128},
    "model": {"latent": 16, "hidden": 64},
    "train": {"lr": 1e-3, "epochs": 30, "ckpt_dir": "ckpt/ae", "report_every": 100},
}


def _set(tree, dotted, value):
    keys = dotted.split(".")
    for k in keys[:-1]:
        tree = tree[k]
    old = tree[keys[-1]]
    tree[keys[-1]] = type(old)(value) if not isinstance(old, (dict, list)) else json.loads(value)


def load(argv=None):
    """python train.py [file.json] [key=value ...]"""
    argv = sys.argv[1:] if argv is None else argv
    cfg = copy.deepcopy(DEFAULTS)
    for arg in argv:
        if "=" not in arg and arg.endswith(".json"):
            with open(arg) as f:
                for section, values in json.load(f).items():
                    cfg[section].update(values)
        else:
            _set(cfg, *arg.split("=", 1))
    return cfg
