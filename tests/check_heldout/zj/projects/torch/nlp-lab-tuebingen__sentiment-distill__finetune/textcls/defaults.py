"""Default hyper-parameters; a YAML file given with --cfg is merged on top."""
import copy

DEFAULTS = {
    "seed": 1234,
    "data": {"dir": "data/sst2_ids", "max_len": 128, "vocab_size": 30522, "batch_size": 32, "workers": 2},
    "model": {"dim": 256, "heads": 4, "layers": 4, "dropout": 0.1, "num_labels": 2},
    "optim": {"lr": 3e-4, "weight_decay": 0.01, "betas": [0.9, 0.98], "warmup_ratio": 0.06},
    "train": {"epochs": 5, "fp16": False, "clip": 1.0, "log_every": 100, "out_dir": "runs/sst2"},
}


class AttrDict(dict):
    __getattr__ = dict.__getitem__
    __setattr__ = dict.__setitem__

    @classmethod
    def wrap(cls, obj):
        if isinstance(obj, dict):
            return cls({k: cls.wrap(v) for k, v in obj.items()})
        return obj


def merge(base, override):
    out = copy.deepcopy(base)
    for k, v in (override or {}).items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merge(out[k], v)
        else:
            out[k] = v
    return out


def get_config(user_cfg=None):
    return AttrDict.wrap(merge(DEFAULTS, user_cfg))
