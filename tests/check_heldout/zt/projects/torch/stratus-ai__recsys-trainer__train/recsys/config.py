import copy
import json
import os

DEFAULTS = {
    "data": {"root": "/mnt/datasets/recsys/v3", "pattern": "part-", "batch_size": 512, "num_items": 50000},
    "model": {"name": "two_tower", "dim": 64},
    "optim": {"name": "adam", "lr": 1e-3, "weight_decay": 0.0},
    "train": {"epochs": 10, "log_every": 50, "ckpt_dir": "checkpoints", "seed": 1234},
}


class Node(dict):
    """dict with attribute access, recursively."""

    def __getattr__(self, key):
        try:
            value = self[key]
        except KeyError as exc:
            raise AttributeError(key) from exc
        return Node(value) if isinstance(value, dict) else value


def deep_merge(base, other):
    out = copy.deepcopy(base)
    for key, value in other.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = deep_merge(out[key], value)
        else:
            out[key] = value
    return out


def _coerce(text):
    try:
        return json.loads(text)
    except ValueError:
        return text


def apply_overrides(cfg, overrides):
    for item in overrides or []:
        dotted, _, raw = item.partition("=")
        *parents, leaf = dotted.split(".")
        node = cfg
        for name in parents:
            node = node.setdefault(name, {})
        node[leaf] = _coerce(raw)
    return cfg


def load_config(path=None, overrides=None):
    cfg = copy.deepcopy(DEFAULTS)
    if path and os.path.exists(path):
        with open(path) as fh:
            cfg = deep_merge(cfg, json.load(fh))
    return Node(apply_overrides(cfg, overrides))
