"""Tiny YAML-ish config reader (key: value per line) so we don't need pyyaml on the cluster."""
import ast

DEFAULTS = {
    "data": "data/qm9_small.npz",
    "target": 0,
    "max_atoms": 29,
    "cutoff": 5.0,
    "hidden": 128,
    "layers": 4,
    "batch_size": 64,
    "epochs": 100,
    "lr": 5e-4,
    "warmup_epochs": 3,
    "val_frac": 0.1,
    "out_dir": "runs/molnet",
}


def _parse(v):
    try:
        return ast.literal_eval(v)
    except (ValueError, SyntaxError):
        return v


def load_config(path):
    cfg = dict(DEFAULTS)
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            k, v = line.split(":", 1)
            cfg[k.strip()] = _parse(v.strip())
    return cfg
