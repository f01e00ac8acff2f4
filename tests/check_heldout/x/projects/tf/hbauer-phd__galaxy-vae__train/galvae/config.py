from dataclasses import dataclass, fields

import yaml


@dataclass
class VAEConfig:
    data: str = "data/galaxy10_64.npz"
    log_dir: str = "logs/vae"
    ckpt_dir: str = "ckpt/vae"
    latent_dim: int = 16
    beta: float = 4.0
    epochs: int = 100
    batch_size: int = 64          # per worker
    lr: float = 2e-4              # one worker; the peak lr is scaled in train.py
    warmup_epochs: int = 5
    patience: int = 10
    seed: int = 11


def load(path=None):
    cfg = VAEConfig()
    if path:
        with open(path) as f:
            values = yaml.safe_load(f) or {}
        names = {f.name for f in fields(VAEConfig)}
        cfg = VAEConfig(**{k: v for k, v in values.items() if k in names})
    return cfg
