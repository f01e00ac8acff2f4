"""hydra-lite: defaults list + dotted overrides + env overrides, into nested AttrDicts."""
import os

import yaml


class AttrDict(dict):
    __getattr__ = dict.__getitem__
    __setattr__ = dict.__setitem__

    @classmethod
    def wrap(cls, obj):
        if isinstance(obj, dict):
            return cls({k: cls.wrap(v) for k, v in obj.items()})
        return obj


def _load(path):
    with open(path) as f:
        return yaml.safe_load(f) or {}


def _set(d, dotted, value):
    keys = dotted.split(".")
    for k in keys[:-1]:
        d = d.setdefault(k, {})
    d[keys[-1]] = yaml.safe_load(value) if isinstance(value, str) else value


def compose(config_dir, name, overrides=(), env_prefix=None):
    cfg = _load(os.path.join(config_dir, name))
    defaults = cfg.pop("defaults", {})
    for o in overrides:  # group choice overrides first, e.g. model=unet_small
        k, v = o.split("=", 1)
        if k in defaults:
            defaults[k] = v
    for group, choice in defaults.items():
        cfg[group] = _load(os.path.join(config_dir, choice + ".yaml"))
    for o in overrides:
        k, v = o.split("=", 1)
        if k not in defaults:
            _set(cfg, k, v)
    if env_prefix:
        for name, value in os.environ.items():
            if name.startswith(env_prefix):
                _set(cfg, name[len(env_prefix):].lower().replace("__", "."), value)
    return AttrDict.wrap(cfg)
