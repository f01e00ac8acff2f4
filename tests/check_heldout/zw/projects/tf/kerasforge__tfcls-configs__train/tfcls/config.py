import ast
import copy
import importlib


def _merge(base, child):
    out = copy.deepcopy(base)
    for key, value in child.items():
        if isinstance(value, dict) and isinstance(out.get(key), dict):
            out[key] = _merge(out[key], value)
        else:
            out[key] = value
    return out


def load_config(name):
    mod = importlib.import_module(f"tfcls.configs.{name}")
    cfg = copy.deepcopy(mod.config)
    base = getattr(mod, "_base_", None)
    return _merge(load_config(base), cfg) if base else cfg


def apply_overrides(cfg, overrides):
    for item in overrides:
        key, raw = item.split("=", 1)
        *path, leaf = key.split(".")
        node = cfg
        for p in path:
            node = node.setdefault(p, {})
        try:
            node[leaf] = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            node[leaf] = raw
    return cfg
