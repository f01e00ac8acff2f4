import yaml

DEFAULTS = {
    "data": "data/celeba64.npy",
    "image_size": 32,
    "channels": 64,
    "timesteps": 1000,
    "batch_size": 32,
    "lr": 2e-4,
    "epochs": 200,
    "ema_decay": 0.9999,
    "workdir": "runs/ddpm",
    "save_every": 5,
    "amp": True,
}


class Config(dict):
    __getattr__ = dict.__getitem__


def load_config(path, overrides=()):
    cfg = dict(DEFAULTS)
    if path:
        with open(path) as fh:
            cfg.update(yaml.safe_load(fh) or {})
    for kv in overrides:
        k, v = kv.split("=", 1)
        cfg[k] = yaml.safe_load(v)
    return Config(cfg)
