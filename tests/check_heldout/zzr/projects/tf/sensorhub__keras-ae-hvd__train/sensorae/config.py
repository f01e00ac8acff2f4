from dataclasses import dataclass


@dataclass
class Config:
    data_dir: str = "data/machines"
    out_dir: str = "artifacts"
    window: int = 128
    channels: int = 4
    batch_size: int = 64          # per worker
    lr: float = 1e-3              # single-worker learning rate
    warmup_epochs: int = 3
    epochs: int = 50
    patience: int = 6
    quantile: float = 0.99
