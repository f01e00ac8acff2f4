"""Tiny OmegaConf look-alike: nested dicts with attribute access, dotted overrides."""
import ast
import copy
import os

import yaml


class DictConfig(dict):
    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key)

    def __setattr__(self, key, value):
        self[key] = value


def _wrap(obj):
    if isinstance(obj, dict):
        return DictConfig({k: _wrap(v) for k, v in obj.items()})
    if isinstance(obj, list):
        return [_wrap(v) for v in obj]
    return obj


def _parse(value):
    try:
        return ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return value


def load_config(path):
    with open(path) as f:
        return _wrap(yaml.safe_load(f))


def set_dotted(cfg, dotted, value):
    node = cfg
    keys = dotted.split(".")
    for k in keys[:-1]:
        node = node.setdefault(k, DictConfig())
    node[keys[-1]] = _wrap(value)


def apply_overrides(cfg, argv):
    cfg = copy.deepcopy(cfg)
    for item in argv:
        if "=" not in item:
            raise ValueError("override must look like key=value, got %r" % item)
        key, value = item.split("=", 1)
        set_dotted(cfg, key.lstrip("+"), _parse(value))
    return cfg


def env_overrides(cfg, prefix):
    # OMEGAHVD_OPTIM__BASE_LR=0.1 -> optim.base_lr = 0.1
    for name, value in os.environ.items():
        if not name.startswith(prefix) or name == prefix + "CONFIG":
            continue
        dotted = name[len(prefix):].lower().replace("__", ".")
        set_dotted(cfg, dotted, _parse(value))
    return cfg


def pretty(cfg):
    return yaml.safe_dump(_plain(cfg), sort_keys=False)


def _plain(obj):
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_plain(v) for v in obj]
    return obj
