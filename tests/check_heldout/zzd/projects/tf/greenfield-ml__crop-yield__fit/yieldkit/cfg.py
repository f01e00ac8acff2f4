import copy
import os
import tomllib

DEFAULTS = {
    "data": {"path": "data/yield_features.npz", "val_years": [2019, 2020]},
    "model": {"hidden": [256, 128], "dropout": 0.1},
    "train": {"batch_size": 256, "lr": 5e-4, "epochs": 60, "optimizer": "adam", "out_dir": "runs/yield"},
}


def _merge(base, over):
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _merge(base[k], v)
        else:
            base[k] = v
    return base


def load_config(path):
    cfg = copy.deepcopy(DEFAULTS)
    if path and os.path.exists(path):
        with open(path, "rb") as fh:
            _merge(cfg, tomllib.load(fh))
    return cfg
