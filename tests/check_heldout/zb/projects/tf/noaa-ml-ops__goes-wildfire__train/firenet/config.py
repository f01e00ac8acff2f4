import os

import yaml

DEFAULTS = {
    "output_root": "/lustre/fire/runs",
    "tile": 64,
    "bands": 6,
    "width": 32,
    "batch_size": 64,
    "lr": 2e-4,
    "epochs": 30,
    "warmup_epochs": 2,
}


def load_config(path):
    cfg = dict(DEFAULTS)
    with open(path) as f:
        cfg.update(yaml.safe_load(f) or {})
    # paths can be redirected to node-local NVMe by the job prologue
    for key in ("train_pattern", "val_pattern"):
        staged = os.environ.get("FIRE_STAGE_DIR")
        if staged:
            cfg[key] = os.path.join(staged, os.path.basename(cfg[key]))
    return cfg
