import os

import yaml

DEFAULTS = {
    "data": {"path": "data/grasp_episodes.npz", "synthetic": 0, "window": 8, "val_episodes": 20},
    "optim": {"lr": 5e-4, "warmup_epochs": 2, "batch_per_worker": 128},
    "train": {"epochs": 25, "out_dir": "runs/grasp", "eval_every": 5, "eval_episodes": 40},
}


def load(path=None):
    cfg = {k: dict(v) for k, v in DEFAULTS.items()}
    if path and os.path.exists(path):
        with open(path) as f:
            for section, values in (yaml.safe_load(f) or {}).items():
                cfg.setdefault(section, {}).update(values)
    return cfg
