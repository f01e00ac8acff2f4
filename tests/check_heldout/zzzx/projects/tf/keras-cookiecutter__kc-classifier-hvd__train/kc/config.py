import copy

import yaml

DEFAULTS = {
    "data": {"source": "npz", "batch_size": 32, "shuffle_buffer": 1000},
    "model": {"name": "small_cnn", "num_classes": 10, "width": 32},
    "optimizer": {"name": "sgd", "learning_rate": 0.01, "momentum": 0.9},
    "trainer": {"epochs": 10, "warmup_epochs": 0, "workdir": "runs/default",
                "checkpoint": True, "tensorboard": False, "verbose": 1},
}


def _merge(base, over):
    out = copy.deepcopy(base)
    for k, v in (over or {}).items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        else:
            out[k] = v
    return out


def load_experiment(path):
    with open(path) as f:
        user = yaml.safe_load(f)
    return _merge(DEFAULTS, user)
