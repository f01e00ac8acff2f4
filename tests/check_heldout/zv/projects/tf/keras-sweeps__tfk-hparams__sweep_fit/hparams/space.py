import itertools
import json

DEFAULT_SPACE = {"lr": [1e-3, 3e-3], "batch_size": [64, 128], "model": ["cnn"]}


def load_space(path=None):
    if path is None:
        return DEFAULT_SPACE
    with open(path) as f:
        return json.load(f)


def trials(space):
    keys = list(space)
    for combo in itertools.product(*[space[k] for k in keys]):
        yield dict(zip(keys, combo))


def trial_name(params):
    return "_".join(f"{k}{v}" for k, v in sorted(params.items()))
