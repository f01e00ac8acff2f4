import copy
from types import SimpleNamespace

import yaml


def _to_ns(d):
    if isinstance(d, dict):
        return SimpleNamespace(**{k: _to_ns(v) for k, v in d.items()})
    return d


def load_config(path, overrides=()):
    """Read a YAML config and apply `section.key=value` overrides from the command line."""
    with open(path) as f:
        raw = yaml.safe_load(f)
    raw = copy.deepcopy(raw)
    for item in overrides:
        key, _, value = item.partition("=")
        section, _, name = key.partition(".")
        raw.setdefault(section, {})[name] = yaml.safe_load(value)
    return _to_ns(raw)
