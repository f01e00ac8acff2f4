import json

DEFAULT_CONFIG = {
    "snapshot": "/mnt/featurestore/exports/fraud_v12",
    "hidden": [256, 128, 64],
    "dropout": 0.2,
    "optimizer": "adam",
    "lr": 1e-3,              # per worker
    "batch_size": 2048,      # per worker
    "epochs": 8,
    "pos_weight": 25.0,
    "out_dir": "artifacts/fraud_mlp",
}


def load_config(path=None):
    """Defaults, overridden by an optional JSON file (unknown keys are rejected)."""
    cfg = dict(DEFAULT_CONFIG)
    if path:
        with open(path) as f:
            user = json.load(f)
        unknown = set(user) - set(cfg) - {"hvd"}
        if unknown:
            raise KeyError(f"unknown config keys: {sorted(unknown)}")
        cfg.update(user)
    return cfg
