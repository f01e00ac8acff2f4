"""Experiment settings: dataclass defaults < experiment.cfg < ASSAY_* environment variables."""
import os
from dataclasses import dataclass, fields


@dataclass
class Settings:
    data_path: str = "data/assay_fp2048.npz"
    out_dir: str = "runs/assay"
    global_batch: int = 1024
    lr: float = 2e-3
    weight_decay: float = 0.01
    warmup_epochs: int = 2
    epochs: int = 40
    hidden: int = 512
    dropout: float = 0.2
    clip: float = 1.0
    seed: int = 7
    resume: bool = True


def _coerce(val, typ):
    if typ is bool:
        return str(val).lower() in ("1", "true", "yes")
    return typ(val)


def load(path="experiment.cfg"):
    s = Settings()
    raw = {}
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line and not line.startswith("#") and "=" in line:
                k, v = line.split("=", 1)
                raw[k.strip().lower()] = v.strip()
    for f in fields(s):
        env_val = os.environ.get("ASSAY_" + f.name.upper())
        val = env_val if env_val is not None else raw.get(f.name)
        if val is not None:
            setattr(s, f.name, _coerce(val, f.type if isinstance(f.type, type) else eval(f.type)))
    return s


SETTINGS = load(os.environ.get("ASSAY_CFG", "experiment.cfg"))
