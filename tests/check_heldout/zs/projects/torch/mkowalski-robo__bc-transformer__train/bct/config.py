from dataclasses import dataclass, field
from typing import Optional


@dataclass
class TrainConfig:
    data_dir: str = "data/demos"
    synthetic_episodes: int = 0
    horizon: int = 16
    obs_dim: int = 20
    act_dim: int = 7
    d_model: int = 128
    n_layers: int = 4
    n_heads: int = 4
    grad_ckpt: bool = False
    batch_size: int = 64          # per worker
    base_lr: float = 3e-4         # for one worker, scaled by world size
    warmup_steps: int = 500
    weight_decay: float = 0.01
    epochs: int = 50
    ema_decay: float = 0.999
    val_fraction: float = 0.1
    seed: int = 0
    out_dir: str = "runs/bct"
    resume: Optional[str] = None
    log_every: int = 50
    tags: list = field(default_factory=list)
