import itertools

import yaml


def load(path):
    with open(path) as f:
        return yaml.safe_load(f)


def expand_grid(cfg):
    grid = cfg.get("grid", {})
    keys = sorted(grid)
    for values in itertools.product(*(grid[k] for k in keys)):
        trial = {k: v for k, v in cfg.items() if k != "grid"}
        trial.update(zip(keys, values))
        yield trial
