import copy
import json
import os

DEFAULT = {
    'data': {'root': 'data/landcover_ai', 'tile': 256, 'batch_size': 16, 'shuffle_buffer': 2048},
    'model': {'filters': 32, 'depth': 4, 'num_classes': 5, 'dropout': 0.1},
    'train': {'epochs': 50, 'lr': 1e-3, 'warmup_epochs': 3, 'mixed_precision': True},
    'output': 'outputs/landcover_unet',
}


def _update(base, new):
    for k, v in new.items():
        if isinstance(v, dict) and isinstance(base.get(k), dict):
            _update(base[k], v)
        else:
            base[k] = v
    return base


def load_config(path=None, overrides=()):
    cfg = copy.deepcopy(DEFAULT)
    if path and os.path.exists(path):
        with open(path) as f:
            _update(cfg, json.load(f))
    for item in overrides:
        key, value = item.split('=', 1)
        node = cfg
        parts = key.split('.')
        for p in parts[:-1]:
            node = node[p]
        node[parts[-1]] = json.loads(value)
    return cfg
