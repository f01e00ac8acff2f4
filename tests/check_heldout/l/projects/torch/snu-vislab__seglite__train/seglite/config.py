import copy
import os

import yaml


class CfgNode(dict):
    """A dict whose keys can also be read as attributes (cfg.SOLVER.BASE_LR)."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError as e:
            raise AttributeError(name) from e

    def __setattr__(self, name, value):
        self[name] = value


def _to_node(d):
    if isinstance(d, dict):
        return CfgNode({k: _to_node(v) for k, v in d.items()})
    return d


def _merge(base, other):
    out = copy.deepcopy(base)
    for k, v in other.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def _load_yaml(path):
    with open(path) as f:
        d = yaml.safe_load(f) or {}
    base = d.pop("_BASE_", None)
    if base is not None:
        d = _merge(_load_yaml(os.path.join(os.path.dirname(path), base)), d)
    return d


def load_config(path, opts=None):
    d = _load_yaml(path)
    opts = opts or []
    for key, value in zip(opts[0::2], opts[1::2]):
        node = d
        *parents, leaf = key.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = yaml.safe_load(value)
    return _to_node(d)
