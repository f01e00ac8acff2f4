import json

_DEFAULTS = {
    "data": {"path": "data/heat2d.npz", "batch": 256, "val_fraction": 0.1},
    "net": {"width": 256, "depth": 4, "activation": "gelu"},
    "opt": {"lr": 5e-4, "accum": 4, "ema": 0.995, "clipnorm": 1.0},
    "run": {"epochs": 100, "ckpt_dir": "ckpt/heat2d", "eval_every": 1},
}


class Cfg(dict):
    """dict with attribute access; nested dicts become Cfg too."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        for k, v in self.items():
            if isinstance(v, dict):
                self[k] = Cfg(v)

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError as e:
            raise AttributeError(key) from e


def load(path=None, **overrides):
    cfg = json.loads(json.dumps(_DEFAULTS))
    if path:
        with open(path) as f:
            for sec, vals in json.load(f).items():
                cfg.setdefault(sec, {}).update(vals)
    for dotted, v in overrides.items():
        sec, key = dotted.split("__")
        cfg[sec][key] = v
    return Cfg(cfg)
