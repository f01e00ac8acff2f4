import json
from types import SimpleNamespace

DEFAULT = {
    "data_path": "data/dsprites_64.npz",
    "batch_size": 64,
    "lr": 5e-4,
    "train_steps": 300000,
    "beta": 4.0,
    "capacity_max": 25.0,        # Burgess et al. controlled capacity
    "capacity_steps": 100000,
    "kl_warmup_steps": 10000,
    "latent_dim": 10,
    "log_every": 200,
    "ckpt_every": 5000,
    "ckpt_dir": "ckpt/beta_vae",
    "sample_dir": "samples",
}


def load(path=None, **overrides):
    hp = dict(DEFAULT)
    if path:
        with open(path) as f:
            hp.update(json.load(f))
    hp.update({k: v for k, v in overrides.items() if v is not None})
    return SimpleNamespace(**hp)
