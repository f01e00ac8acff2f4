import copy

import yaml

DEFAULTS = {
    "data": {"root": "data/pages", "train_list": "splits/train.txt", "val_list": "splits/val.txt",
             "size": 512, "workers": 4},
    "model": {"width": 32, "classes": ["background", "text", "title", "table", "figure"]},
    "optim": {"lr": 2e-4, "weight_decay": 1e-4, "batch_size": 8, "epochs": 40},
    "output": "work_dirs/layout",
}


def _merge(base, override):
    for k, v in override.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _merge(base[k], v)
        else:
            base[k] = v
    return base


def load_config(path=None):
    cfg = copy.deepcopy(DEFAULTS)
    if path:
        with open(path) as fh:
            _merge(cfg, yaml.safe_load(fh) or {})
    return cfg
