import itertools
import random

SPACE = {
    "lr": [3e-4, 1e-3, 3e-3],
    "hidden": [64, 128, 256],
    "depth": [1, 2, 3],
    "dropout": [0.0, 0.2],
}


def grid():
    keys = sorted(SPACE)
    for values in itertools.product(*(SPACE[k] for k in keys)):
        yield dict(zip(keys, values))


def sample_configs(n, seed):
    configs = list(grid())
    random.Random(seed).shuffle(configs)
    return [dict(c, cid=i) for i, c in enumerate(configs[:n])]


def describe(cfg):
    return "cid={cid} lr={lr:g} hidden={hidden} depth={depth} dropout={dropout}".format(**cfg)
