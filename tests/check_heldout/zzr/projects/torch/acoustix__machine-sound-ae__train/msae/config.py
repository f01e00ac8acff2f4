import tomllib
from dataclasses import dataclass, field, asdict
from typing import List, Optional


@dataclass
class Config:
    feature_dir: str = "features/logmel"
    machine_types: List[str] = field(default_factory=lambda: ["fan", "pump", "slider", "valve"])
    frames: int = 5
    n_mels: int = 128
    batch_size: int = 256
    lr: float = 1e-3
    epochs: int = 100
    out_dir: str = "exp/msae"
    log_every: int = 50

    @property
    def input_dim(self):
        return self.frames * self.n_mels


def load_config(path: Optional[str]) -> Config:
    cfg = Config()
    if path:
        with open(path, "rb") as fh:
            for k, v in tomllib.load(fh).items():
                setattr(cfg, k, v)
    return cfg


def dump(cfg: Config) -> dict:
    return asdict(cfg)
