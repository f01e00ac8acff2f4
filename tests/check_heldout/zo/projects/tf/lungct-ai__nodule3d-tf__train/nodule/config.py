import json
import os

DEFAULTS = {
    "data_dir": "data/luna16_cubes",
    "cube": 48,
    "batch_size": 16,        # per worker
    "lr": 5e-4,
    "epochs": 40,
    "n_folds": 10,
    "fold": 0,
    "focal_gamma": 2.0,
    "focal_alpha": 0.75,
    "out_dir": "runs/nodule3d",
    "seed": 1,
}


def load_config(path=None, **overrides):
    cfg = dict(DEFAULTS)
    if path and os.path.exists(path):
        with open(path) as f:
            cfg.update(json.load(f))
    cfg.update({k: v for k, v in overrides.items() if v is not None})
    return cfg
