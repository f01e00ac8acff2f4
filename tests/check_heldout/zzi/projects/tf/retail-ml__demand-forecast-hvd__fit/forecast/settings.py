"""Config loading: YAML file + dotted overrides (`train.epochs=5`)."""
import copy

import yaml

DEFAULT_CONFIG = "configs/default.yaml"


def _set_dotted(cfg, dotted, raw):
    keys = dotted.split(".")
    node = cfg
    for k in keys[:-1]:
        node = node.setdefault(k, {})
    node[keys[-1]] = yaml.safe_load(raw)


def load_settings(path=DEFAULT_CONFIG, overrides=()):
    with open(path) as fh:
        cfg = yaml.safe_load(fh)
    cfg = copy.deepcopy(cfg)
    for item in overrides:
        key, _, value = item.partition("=")
        _set_dotted(cfg, key, value)
    return cfg
