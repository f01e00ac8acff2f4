import copy
import json
import os

DEFAULTS = {
    "data": {"shard_list": "conf/shards.txt", "window": 28, "horizon": 7, "batch_size": 256},
    "model": {"kind": "mlp", "units": [256, 128]},
    "optimizer": {"lr": 0.0005, "warmup_epochs": 3},
    "fit": {"epochs": 40, "out_dir": "artifacts", "tracking_uri": "file:./mlruns"},
}


def merge(a, b):
    out = copy.deepcopy(a)
    for k, v in b.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def from_env(prefix="FORECAST__"):
    """FORECAST__optimizer__lr=0.001 -> {"optimizer": {"lr": 0.001}}"""
    tree = {}
    for key, raw in os.environ.items():
        if not key.startswith(prefix):
            continue
        *parents, leaf = key[len(prefix):].split("__")
        node = tree
        for p in parents:
            node = node.setdefault(p, {})
        try:
            node[leaf] = json.loads(raw)
        except ValueError:
            node[leaf] = raw
    return tree


def resolve(config_path=None):
    cfg = DEFAULTS
    if config_path:
        with open(config_path) as f:
            cfg = merge(cfg, json.load(f))
    return merge(cfg, from_env())
