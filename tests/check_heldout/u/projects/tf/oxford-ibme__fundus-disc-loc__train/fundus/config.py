import yaml

DEFAULTS = {
    "gpu": "0",                 # which card on the lab workstation
    "data": "/data/fundus/refuge_disc.npz",
    "image_size": 224,
    "batch_size": 32,           # per process
    "lr": 1e-3,                 # single process; x world size
    "epochs": 80,
    "heatmap_sigma": 4.0,
    "ckpt_dir": "ckpt/disc_loc",
    "log_every": 50,
}


def load_config(path=None, overrides=()):
    cfg = dict(DEFAULTS)
    if path:
        with open(path) as f:
            cfg.update(yaml.safe_load(f) or {})
    for item in overrides:
        k, v = item.split("=", 1)
        cfg[k] = yaml.safe_load(v)
    return cfg
