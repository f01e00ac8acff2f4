import copy

import yaml

DEFAULTS = {
    "data": {"path": None, "target": "y", "categorical": [], "test_size": 0.2, "seed": 17},
    "model": {"feature_dim": 32, "output_dim": 16, "n_steps": 3, "relaxation": 1.5, "emb_dim": 4},
    "train": {"batch_size": 1024, "epochs": 50, "lr": 0.02, "patience": 8,
              "checkpoint": "artifacts/tabnet_best.weights.h5", "importance_csv": "artifacts/importance.csv"},
}


def deep_update(d, u):
    for k, v in u.items():
        if isinstance(v, dict):
            d[k] = deep_update(d.get(k, {}), v)
        else:
            d[k] = v
    return d


def load(path=None, **overrides):
    cfg = copy.deepcopy(DEFAULTS)
    if path:
        with open(path) as f:
            deep_update(cfg, yaml.safe_load(f) or {})
    return deep_update(cfg, overrides)
