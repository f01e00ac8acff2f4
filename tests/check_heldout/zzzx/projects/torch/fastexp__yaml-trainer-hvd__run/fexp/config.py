import ast
import copy

import yaml


def load_config(path):
    with open(path) as f:
        return yaml.safe_load(f)


def _cast(v):
    try:
        return ast.literal_eval(v)
    except (ValueError, SyntaxError):
        return v


def merge_opts(cfg, opts):
    cfg = copy.deepcopy(cfg)
    for item in opts or []:
        key, _, value = item.partition("=")
        node = cfg
        *parents, leaf = key.split(".")
        for p in parents:
            node = node.setdefault(p, {})
        node[leaf] = _cast(value)
    return cfg
