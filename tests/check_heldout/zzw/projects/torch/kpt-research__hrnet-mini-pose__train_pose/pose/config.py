import copy

import yaml

_DEFAULTS = {
    "DATA": {"ROOT": "data/mpii", "NUM_JOINTS": 16, "INPUT_SIZE": [256, 256], "HEATMAP_SIZE": [64, 64], "SIGMA": 2},
    "TRAIN": {"BATCH_SIZE_PER_GPU": 32, "LR": 1e-3, "LR_STEPS": [90, 120], "EPOCHS": 140},
    "TEST": {"BATCH_SIZE_PER_GPU": 32, "PCK_THRESHOLD": 0.5},
    "OUTPUT_DIR": "output",
}


def _merge(dst, src):
    for k, v in src.items():
        if isinstance(v, dict) and isinstance(dst.get(k), dict):
            _merge(dst[k], v)
        else:
            dst[k] = v


def load_config(path, opts=()):
    cfg = copy.deepcopy(_DEFAULTS)
    with open(path) as f:
        _merge(cfg, yaml.safe_load(f) or {})
    for item in opts:  # KEY.SUB=value overrides from the command line
        key, value = item.split("=", 1)
        node = cfg
        *parents, leaf = key.split(".")
        for p in parents:
            node = node[p]
        node[leaf] = yaml.safe_load(value)
    return cfg
