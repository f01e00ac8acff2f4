import copy

import yaml

DEFAULT_PATH = "configs/default.yaml"


def _merge(base, extra):
    out = copy.deepcopy(base)
    for k, v in extra.items():
        out[k] = _merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def load(path=DEFAULT_PATH, overrides=None):
    with open(path) as fh:
        cfg = yaml.safe_load(fh)
    if overrides:
        cfg = _merge(cfg, overrides)
    return cfg
