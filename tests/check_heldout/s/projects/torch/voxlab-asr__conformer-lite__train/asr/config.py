import copy
import yaml


def _set(cfg, dotted, value):
    node = cfg
    keys = dotted.split(".")
    for k in keys[:-1]:
        node = node.setdefault(k, {})
    node[keys[-1]] = yaml.safe_load(value)


def load_config(path, overrides=()):
    with open(path) as f:
        cfg = yaml.safe_load(f)
    cfg = copy.deepcopy(cfg)
    for item in overrides:
        key, value = item.split("=", 1)
        _set(cfg, key, value)
    return cfg
